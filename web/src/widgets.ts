/**
 * Zulip's message widgets as its clients replay them (web/shared/src/poll_data.ts and
 * todo_data.ts): the message's first submessage creates the widget, later ones change it, in
 * order. The state is derived from the submessages every time; nothing else is kept.
 */
export interface Submessage {
  id: number;
  sender_id: number;
  msg_type: string;
  content: string;
}

interface PollOption {
  key: string;
  text: string;
  voters: Set<number>;
}
export interface Poll {
  kind: "poll";
  question: string;
  options: PollOption[];
  /** The next index this user's new option would take (keys are `${userId},${idx}`). */
  nextIdx: (userId: number) => number;
}

interface TodoTask {
  key: string;
  task: string;
  desc: string;
  completed: boolean;
}
interface Todo {
  kind: "todo";
  title: string;
  tasks: TodoTask[];
}

/** A widget submessage's content as sent (unchecked): the fields any of them has. */
interface WidgetContent {
  widget_type?: string;
  extra_data?: { question?: string; options?: string[]; task_list_title?: string; tasks?: Array<{ task: string; desc: string }> };
  type?: string;
  key?: string;
  vote?: number;
  option?: unknown;
  idx?: number;
  question?: unknown;
  task?: unknown;
  desc?: string;
  completed?: unknown;
  title?: unknown;
}

function parse(content: string): WidgetContent | null {
  try {
    return JSON.parse(content) as WidgetContent | null;
  } catch {
    return null;
  }
}

/** The widget of a message's submessages, or null when it has none (or one this app does not know). */
export function widgetOf(submessages: readonly Submessage[] | undefined): Poll | Todo | null {
  const [first, ...changes] = (submessages ?? []).filter((s) => s.msg_type === "widget");
  const setup = first && parse(first.content);
  if (setup?.widget_type === "poll") return replayPoll(setup.extra_data ?? {}, changes);
  if (setup?.widget_type === "todo") return replayTodo(setup.extra_data ?? {}, changes);
  return null;
}

function replayPoll(extra: { question?: string; options?: string[] }, changes: readonly Submessage[]): Poll {
  let question = extra.question ?? "";
  const options = new Map<string, PollOption>();
  (extra.options ?? []).forEach((text, i) => options.set(`canned,${i}`, { key: `canned,${i}`, text, voters: new Set() }));
  const maxIdx = new Map<number, number>();
  for (const change of changes) {
    const data = parse(change.content);
    if (data?.type === "vote" && data.key !== undefined && options.has(data.key)) {
      const voters = options.get(data.key)!.voters;
      if (data.vote === 1) voters.add(change.sender_id);
      else if (data.vote === -1) voters.delete(change.sender_id);
    } else if (data?.type === "new_option" && typeof data.option === "string" && Number.isInteger(data.idx)) {
      const idx = data.idx!;
      const key = `${change.sender_id},${idx}`;
      if (!options.has(key)) options.set(key, { key, text: data.option, voters: new Set() });
      maxIdx.set(change.sender_id, Math.max(maxIdx.get(change.sender_id) ?? -1, idx));
    } else if (data?.type === "question" && typeof data.question === "string") {
      question = data.question;
    }
  }
  return { kind: "poll", question, options: [...options.values()], nextIdx: (userId) => (maxIdx.get(userId) ?? -1) + 1 };
}

function replayTodo(extra: { task_list_title?: string; tasks?: Array<{ task: string; desc: string }> }, changes: readonly Submessage[]): Todo {
  let title = extra.task_list_title ?? "";
  const tasks = new Map<string, TodoTask>();
  (extra.tasks ?? []).forEach((t, i) => tasks.set(`${i},canned`, { key: `${i},canned`, task: t.task, desc: t.desc ?? "", completed: false }));
  for (const change of changes) {
    const data = parse(change.content);
    if (data?.type === "new_task" && typeof data.task === "string") {
      const key = `${String(data.key)},${change.sender_id}`;
      if (!tasks.has(key)) tasks.set(key, { key, task: data.task, desc: data.desc ?? "", completed: data.completed === true });
    } else if (data?.type === "strike" && data.key !== undefined && tasks.has(data.key)) {
      const task = tasks.get(data.key)!;
      task.completed = !task.completed;
    } else if (data?.type === "new_task_list_title" && typeof data.title === "string") {
      title = data.title;
    }
  }
  return { kind: "todo", title, tasks: [...tasks.values()] };
}
