import fs from "node:fs";
import { createRequire } from "node:module";
import type { Page } from "playwright-core";

const AXE = fs.readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

interface Violation {
  id: string;
  impact: string;
  help: string;
  nodes: Array<{ target: string[]; failureSummary?: string }>;
}

/** axe-core's serious and critical violations on the page as it is now, one line each. */
export async function axeScan(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(AXE);
  const violations: Violation[] = await page.evaluate(async () => (await (window as any).axe.run(document, { resultTypes: ["violations"] })).violations);
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .flatMap((v) => v.nodes.map((n) => `${v.id} (${v.impact}) ${n.target.join(" ")}: ${n.failureSummary?.replace(/\s+/g, " ") ?? v.help}`));
}

/** axeScan in the light and the dark color scheme, each line prefixed with its scheme; the page is left light. */
export async function axeScanBothSchemes(page: Page): Promise<string[]> {
  const found: string[] = [];
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    found.push(...(await axeScan(page)).map((line) => `${scheme}: ${line}`));
  }
  await page.emulateMedia({ colorScheme: "light" });
  return found;
}
