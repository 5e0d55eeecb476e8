import { badRequest } from "./errors.js";

/**
 * Zulip's message widgets (zerver/lib/widget.py): a message whose content starts with `/poll` or
 * `/todo` carries a widget, stored as its first submessage (msg_type "widget", content
 * {widget_type, extra_data}). Readers change it with more submessages (votes, new options, tasks,
 * strikes), which every client replays in order.
 */
export type WidgetType = "poll" | "todo";

export interface WidgetContent {
  widget_type: WidgetType;
  extra_data: PollExtraData | TodoExtraData;
}
interface PollExtraData {
  question: string;
  options: string[];
}
interface TodoExtraData {
  task_list_title: string;
  tasks: Array<{ task: string; desc: string }>;
}

/** The widget a message's content creates, or null (Zulip's get_widget_data). */
export function widgetFromContent(content: string): WidgetContent | null {
  const command = content.split(/\s+/)[0];
  if (command !== "/poll" && command !== "/todo") return null;
  const rest = content.replace(command, "");
  const lines = rest.split(/\r\n|\r|\n/);
  // The first line is the question (title) unless it is empty.
  const title = lines[0] ? lines.shift()!.trim() : "";
  // An item per line, without a list marker ("- ", "* ") if it has one.
  const items = lines.map((line) => line.trim().replace(/^\s*[-*]?\s*/, "")).filter((item) => item.length > 0);
  if (command === "/poll") return { widget_type: "poll", extra_data: { question: title, options: items } };
  const tasks = items.map((item) => {
    const colon = item.indexOf(": ");
    return colon < 0 ? { task: item.trim(), desc: "" } : { task: item.slice(0, colon).trim(), desc: item.slice(colon + 2).trim() };
  });
  return { widget_type: "todo", extra_data: { task_list_title: title, tasks } };
}

/** The widget type of a stored "widget" submessage's content, or null when it names none. */
export function widgetTypeOf(content: string | undefined): WidgetType | null {
  if (content === undefined) return null;
  try {
    const type = (JSON.parse(content) as { widget_type?: unknown }).widget_type;
    return type === "poll" || type === "todo" ? type : null;
  } catch {
    return null;
  }
}

/** This should match MAX_IDX in Zulip's client widgets (somewhat arbitrary). */
const MAX_IDX = 1000;

type Field = "string" | "bool" | { intIn: number[] } | { intRange: [number, number] };

/**
 * Zulip's validate_poll_data / validate_todo_data: the shape of a change to a widget, with the
 * errors of Zulip's check_dict_only. Question and title changes are the widget author's alone.
 */
export function checkWidgetData(widget: WidgetType, data: unknown, isWidgetAuthor: boolean): void {
  const name = widget === "poll" ? "poll data" : "todo data";
  if (data === null || typeof data !== "object" || Array.isArray(data)) throw badRequest(`${name} is not a dict`);
  const type = (data as Record<string, unknown>).type;
  if (type === undefined) throw badRequest(`type key is missing from ${name}`);
  if (typeof type !== "string") throw badRequest(`${name}["type"] is not a string`);
  const shape = widget === "poll" ? pollShape(type, isWidgetAuthor) : todoShape(type, isWidgetAuthor);
  if (!shape) throw badRequest(`Unknown type for ${name}: ${type}`);
  checkDictOnly(name, data as Record<string, unknown>, { type: "string", ...shape });
}

function pollShape(type: string, isAuthor: boolean): Record<string, Field> | null {
  switch (type) {
    case "vote":
      return { key: "string", vote: { intIn: [1, -1] } };
    case "question":
      if (!isAuthor) throw badRequest("You can't edit a question unless you are the author.");
      return { question: "string" };
    case "new_option":
      return { option: "string", idx: { intRange: [0, MAX_IDX] } };
    default:
      return null;
  }
}

function todoShape(type: string, isAuthor: boolean): Record<string, Field> | null {
  switch (type) {
    case "new_task":
      return { key: { intRange: [0, MAX_IDX] }, task: "string", desc: "string", completed: "bool" };
    case "strike":
      return { key: "string" };
    case "new_task_list_title":
      if (!isAuthor) throw badRequest("You can't edit the task list title unless you are the author.");
      return { title: "string" };
    default:
      return null;
  }
}

function checkDictOnly(name: string, data: Record<string, unknown>, shape: Record<string, Field>): void {
  for (const [key, field] of Object.entries(shape)) {
    if (!(key in data)) throw badRequest(`${key} key is missing from ${name}`);
    const value = data[key];
    const where = `${name}["${key}"]`;
    if (field === "string") {
      if (typeof value !== "string") throw badRequest(`${where} is not a string`);
    } else if (field === "bool") {
      if (typeof value !== "boolean") throw badRequest(`${where} is not a boolean`);
    } else {
      if (typeof value !== "number" || !Number.isInteger(value)) throw badRequest(`${where} is not an integer`);
      if ("intIn" in field && !field.intIn.includes(value)) throw badRequest(`Invalid ${where}`);
      if ("intRange" in field && (value < field.intRange[0] || value > field.intRange[1]))
        throw badRequest(`${where} is not in the range ${field.intRange[0]}..${field.intRange[1]}`);
    }
  }
  const extra = Object.keys(data).filter((key) => !(key in shape));
  if (extra.length > 0) throw badRequest(`Unexpected arguments: ${extra.join(", ")}`);
}
