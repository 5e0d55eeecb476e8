/**
 * The compose box's formatting buttons, as Zulip's compose_ui.format_text does them: inline
 * syntax wraps the selection (or, a second time, unwraps it), block syntax fences the selected
 * lines, lists prefix each line; with nothing selected a placeholder is inserted and selected.
 * Pure: text and selection in, text and selection out.
 */
export interface Edit {
  text: string;
  start: number;
  end: number;
}

export type Format = "bold" | "italic" | "strikethrough" | "link" | "code" | "quote" | "spoiler" | "math" | "poll" | "bulleted" | "numbered";

const INLINE: Partial<Record<Format, [string, string, string]>> = {
  bold: ["**", "**", "bold text"],
  italic: ["*", "*", "italic text"],
  strikethrough: ["~~", "~~", "strikethrough text"],
};

function wrap(e: Edit, prefix: string, suffix: string, placeholder: string): Edit {
  const { text, start, end } = e;
  const selected = text.slice(start, end);
  // Already wrapped (outside or inside the selection): unwrap.
  if (text.slice(start - prefix.length, start) === prefix && text.slice(end, end + suffix.length) === suffix) {
    // "**bold**" selected inside: do not take "*" of "**" for italic.
    const italicInsideBold = prefix === "*" && text.slice(start - 2, start) === "**" && text.slice(start - 3, start) !== "***";
    if (!italicInsideBold) {
      return {
        text: text.slice(0, start - prefix.length) + selected + text.slice(end + suffix.length),
        start: start - prefix.length,
        end: end - prefix.length,
      };
    }
  }
  if (selected.length >= prefix.length + suffix.length && selected.startsWith(prefix) && selected.endsWith(suffix)) {
    const inner = selected.slice(prefix.length, selected.length - suffix.length);
    const italicOfBold = prefix === "*" && selected.startsWith("**") && !selected.startsWith("***");
    if (!italicOfBold) return { text: text.slice(0, start) + inner + text.slice(end), start, end: start + inner.length };
  }
  const inner = selected === "" ? placeholder : selected;
  return {
    text: text.slice(0, start) + prefix + inner + suffix + text.slice(end),
    start: start + prefix.length,
    end: start + prefix.length + inner.length,
  };
}

/** The selection widened to whole lines. */
function lines(e: Edit): { from: number; to: number } {
  const from = e.text.lastIndexOf("\n", e.start - 1) + 1;
  const newline = e.text.indexOf("\n", e.end);
  return { from, to: newline === -1 ? e.text.length : newline };
}

/** A fenced block around the selected text (or a placeholder), on lines of its own. */
function fence(e: Edit, opening: string, placeholder: string): Edit {
  const { text, start, end } = e;
  const selected = text.slice(start, end);
  const inner = selected === "" ? placeholder : selected;
  const before = text.slice(0, start);
  const after = text.slice(end);
  const lead = before === "" || before.endsWith("\n") ? "" : "\n";
  const trail = after.startsWith("\n") ? "" : "\n";
  const block = `${lead}${opening}\n${inner}\n\`\`\`${trail}`;
  const innerStart = start + lead.length + opening.length + 1;
  return { text: before + block + after, start: innerStart, end: innerStart + inner.length };
}

function prefixLines(e: Edit, numbered: boolean): Edit {
  const { from, to } = lines(e);
  const chosen = e.text.slice(from, to);
  const rows = chosen.split("\n");
  const marker = numbered ? /^\d+\. / : /^- /;
  let out: string;
  if (chosen !== "" && rows.every((r) => marker.test(r))) out = rows.map((r) => r.replace(marker, "")).join("\n");
  else out = rows.map((r, i) => `${numbered ? `${i + 1}. ` : "- "}${r}`).join("\n");
  return { text: e.text.slice(0, from) + out + e.text.slice(to), start: from, end: from + out.length };
}

export function applyFormat(format: Format, e: Edit): Edit {
  const inline = INLINE[format];
  if (inline) return wrap(e, ...inline);
  const selected = e.text.slice(e.start, e.end);
  const multiline = selected.includes("\n");
  switch (format) {
    case "link": {
      // [text](url) with "url" selected to be typed over.
      const label = selected === "" ? "link text" : selected;
      const text = `${e.text.slice(0, e.start)}[${label}](url)${e.text.slice(e.end)}`;
      const urlStart = e.start + label.length + 3;
      return { text, start: urlStart, end: urlStart + 3 };
    }
    case "code":
      return multiline ? fence(e, "```", "") : wrap(e, "`", "`", "code");
    case "math":
      return multiline ? fence(e, "```math", "") : wrap(e, "$$", "$$", "math");
    case "quote":
      return fence(e, "```quote", "quoted text");
    case "spoiler":
      return fence(e, "```spoiler Header", "Content");
    case "poll": {
      const template = "/poll Question\nOption 1\nOption 2";
      const before = e.text.slice(0, e.start);
      const lead = before === "" || before.endsWith("\n") ? "" : "\n";
      const at = e.start + lead.length + "/poll ".length;
      return { text: before + lead + template + e.text.slice(e.end), start: at, end: at + "Question".length };
    }
    case "bulleted":
      return prefixLines(e, false);
    case "numbered":
      return prefixLines(e, true);
    default:
      return e;
  }
}

/** The formatting a key press asks for (Ctrl/Cmd+B bold, +I italic, +Shift+L link), if any. */
export function formatForKey(e: { key: string; ctrlKey: boolean; metaKey: boolean; shiftKey: boolean; altKey: boolean }): Format | null {
  if (!(e.ctrlKey || e.metaKey) || e.altKey) return null;
  const key = e.key.toLowerCase();
  if (!e.shiftKey && key === "b") return "bold";
  if (!e.shiftKey && key === "i") return "italic";
  if (e.shiftKey && key === "l") return "link";
  return null;
}
