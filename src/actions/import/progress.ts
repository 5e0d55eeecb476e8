/**
 * What an import tells the person running it: notes (a line each) and, per stage ("messages",
 * "reactions", "uploads"), how many items are done out of the stage's total. The command line
 * draws a bar from the counts (cli/progress.ts); tests pass nothing.
 */
export interface ImportProgress {
  note(line: string): void;
  advance(stage: string, done: number, total: number): void;
}

export const silentProgress: ImportProgress = { note: () => {}, advance: () => {} };
