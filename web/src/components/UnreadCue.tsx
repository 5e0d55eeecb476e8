import "./UnreadCue.css";

/** Unread messages of the open view out of sight: above the screen, below it, and whether more may be beyond what is loaded. */
export interface UnreadOutside {
  above: number;
  below: number;
  more: boolean;
}

function unreadCueText(count: number, where: "above" | "below", more = false): string {
  return `${count}${more ? "+" : ""} unread message${count === 1 && !more ? "" : "s"} ${where}`;
}

/**
 * "N unread messages above/below": a button pinned to the top or bottom edge of the message list
 * (sticky, taking no room of its own) while unread messages are out of sight; a click brings them
 * into view.
 */
export function UnreadCue({ where, outside, onJump }: { where: "above" | "below"; outside: UnreadOutside; onJump: () => void }) {
  const count = where === "above" ? outside.above : outside.below;
  return (
    <div class={`unread-cue ${where}`}>
      {count > 0 && (
        <button type="button" onClick={onJump}>
          <span aria-hidden="true">{where === "above" ? "↑" : "↓"}</span> {unreadCueText(count, where, where === "below" && outside.more)}
        </button>
      )}
    </div>
  );
}
