import type { MarkdownIt, StateCore } from "markdown-it";

/**
 * Zulip's list dialect, mapped onto CommonMark before block parsing: items nest under an item
 * when indented by 2 or more spaces (CommonMark wants the parent's content column), a list may
 * hang directly off a paragraph, and "*", "-" and "+" items at one level form one list.
 * Lines inside code fences are left alone.
 */
const ITEM_RE = /^( *)([*+-]|\d{1,9}[.)])( +)(.*)$/;
const FENCE_RE = /^\s*(~{3,}|`{3,})\s*([^\s`~]*)/;

interface Item {
  indent: number;
  column: number;
  bullet: string;
}

/**
 * Returns the rewritten source and, per line, the start number of nested ordered lists written
 * as "1." (CommonMark lets only a list starting at 1 interrupt the parent item's paragraph).
 */
function rewrite(src: string): { src: string; starts: Map<number, number> } {
  const out: string[] = [];
  const starts = new Map<number, number>();
  const fences: { fence: string; code: boolean }[] = [];
  let items: Item[] = [];
  let previous = "";
  for (const line of src.split("\n")) {
    const fence = FENCE_RE.exec(line);
    if (fence) {
      const top = fences[fences.length - 1];
      const [, marks = "", lang = ""] = fence;
      if (!lang && top && top.fence === marks) fences.pop();
      else if (!top?.code) fences.push({ fence: marks, code: !["quote", "quoted", "spoiler"].includes(lang.toLowerCase()) });
      items = [];
    }
    const item = !fence && !fences.some((f) => f.code) ? ITEM_RE.exec(line) : null;
    if (!item) {
      if (line.trim() !== "" && !line.startsWith(" ") && previous.trim() === "") items = [];
      out.push(line);
      previous = line;
      continue;
    }
    const [, spaces = "", marker = "", gap = "", rest = ""] = item;
    const indent = spaces.length;
    let sibling: Item | undefined;
    while (indent < (items.at(-1)?.indent ?? -Infinity) + 2) sibling = items.pop();
    const parent = items.at(-1);
    if (!parent && !sibling && indent >= 4) {
      out.push(line); // an indented code block
      previous = line;
      continue;
    }
    if (!parent && !sibling && previous.trim() !== "" && !ITEM_RE.test(previous)) out.push(""); // a list hanging off a paragraph
    const newIndent = parent ? parent.column : Math.min(indent, 3);
    let bullet = sibling && /[*+-]/.test(marker) && /[*+-]/.test(sibling.bullet) ? sibling.bullet : marker;
    const number = /^\d+/.exec(marker)?.[0];
    if (parent && !sibling && number !== undefined) {
      starts.set(out.length, Number(number));
      bullet = `1${marker.slice(number.length)}`;
    }
    const rewritten = " ".repeat(newIndent) + bullet + gap + rest;
    items.push({ indent, column: newIndent + bullet.length + gap.length, bullet });
    out.push(rewritten);
    previous = line;
  }
  return { src: out.join("\n"), starts };
}

const STARTS_KEY = "zulipListStarts";

export function listsPlugin(md: MarkdownIt): void {
  md.core.ruler.after("normalize", "zulip_lists", (state: StateCore) => {
    const { src, starts } = rewrite(state.src);
    state.src = src;
    state.env[STARTS_KEY] = starts;
  });
  md.core.ruler.after("block", "zulip_list_starts", (state: StateCore) => {
    const starts = state.env[STARTS_KEY] as Map<number, number>;
    for (const token of state.tokens) {
      const start = token.type === "ordered_list_open" && token.map ? starts.get(token.map[0]) : undefined;
      if (start !== undefined && start !== 1) token.attrSet("start", String(start));
    }
  });
}
