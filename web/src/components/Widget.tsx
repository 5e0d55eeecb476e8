import "./Widget.css";
import { ownKeys } from "./Menu.js";
import { useState } from "preact/hooks";
import { api, myUserId } from "../api.js";
import type { Message } from "../state.js";
import { widgetOf } from "../widgets.js";

/** Sends one change of the message's widget (POST /submessage); the submessage event redraws it. */
function submit(m: Message, data: object): void {
  void api.post("/submessage", { message_id: m.id, msg_type: "widget", content: JSON.stringify(data) }).catch((error: Error) => alert(error.message));
}

/** The one-line form that adds a poll option or a task. */
function AddItem({ label, onAdd }: { label: "option" | "task"; onAdd: (text: string) => void }) {
  const [draft, setDraft] = useState("");
  return (
    <form
      onSubmit={(ev) => {
        ev.preventDefault();
        if (draft.trim() === "") return;
        onAdd(draft.trim());
        setDraft("");
      }}
    >
      <input class="text-field" value={draft} placeholder={`New ${label}`} aria-label={`New ${label}`} onInput={(ev) => setDraft(ev.currentTarget.value)} />{" "}
      <button type="submit">Add {label}</button>
    </form>
  );
}

/** A poll or to-do list made by `/poll` or `/todo`, shown instead of the message's text. */
export function Widget({ m }: { m: Message }) {
  const widget = widgetOf(m.submessages);
  if (!widget) return null;
  const me = myUserId;
  if (widget.kind === "poll") {
    return (
      <div class="widget poll" role="presentation" onKeyDown={ownKeys}>
        <div class="widget-title">{widget.question || "Poll"}</div>
        <ul>
          {widget.options.map((o) => {
            const mine = o.voters.has(me);
            return (
              <li key={o.key}>
                <button
                  type="button"
                  class={mine ? "voted" : ""}
                  aria-pressed={mine}
                  aria-label={`Vote for ${o.text} (${o.voters.size} ${o.voters.size === 1 ? "vote" : "votes"})`}
                  onClick={() => submit(m, { type: "vote", key: o.key, vote: mine ? -1 : 1 })}
                >
                  {o.voters.size}
                </button>{" "}
                <span class="option">{o.text}</span>
              </li>
            );
          })}
        </ul>
        <AddItem label="option" onAdd={(option) => submit(m, { type: "new_option", idx: widget.nextIdx(me), option })} />
      </div>
    );
  }
  return (
    <div class="widget todo" role="presentation" onKeyDown={ownKeys}>
      <div class="widget-title">{widget.title || "Task list"}</div>
      <ul>
        {widget.tasks.map((t) => (
          <li key={t.key} class={t.completed ? "done" : ""}>
            <label>
              <input type="checkbox" checked={t.completed} onChange={() => submit(m, { type: "strike", key: t.key })} /> <strong>{t.task}</strong>
              {t.desc && <span class="desc">: {t.desc}</span>}
            </label>
          </li>
        ))}
      </ul>
      <AddItem
        label="task"
        onAdd={(text) => {
          const [task, ...desc] = text.split(": ");
          submit(m, { type: "new_task", key: widget.tasks.length, task: (task ?? "").trim(), desc: desc.join(": ").trim(), completed: false });
        }}
      />
    </div>
  );
}
