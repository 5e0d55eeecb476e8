// The SVG chart of docs/benchmarks.md: for each targeted figure and engine, how far it is from its
// target (log scale; right of the line = target met).

const escape = (s) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** `rows`: [{ label, engines: { [engine]: score } }], score = value ÷ target (≥ 1 meets it). */
export function targetChart(rows, engineNames) {
  const colors = ["#2f6fbd", "#d4842a", "#5a9e4b"];
  const labelWidth = 330;
  const plotWidth = 420;
  const barHeight = 12;
  const rowHeight = engineNames.length * (barHeight + 2) + 10;
  const top = 40;
  const height = top + rows.length * rowHeight + 30;
  const width = labelWidth + plotWidth + 20;
  const minLog = -2;
  const maxLog = 2;
  const x = (score) => labelWidth + ((Math.max(minLog, Math.min(maxLog, Math.log10(Math.max(score, 1e-9)))) - minLog) / (maxLog - minLog)) * plotWidth;
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="11">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="${labelWidth}" y="14" font-size="12" font-weight="bold">Figure ÷ target (log scale; right of the line meets the target)</text>`,
  ];
  engineNames.forEach((name, i) => {
    out.push(
      `<rect x="${labelWidth + i * 110}" y="22" width="10" height="10" fill="${colors[i]}"/>`,
      `<text x="${labelWidth + i * 110 + 14}" y="31">${escape(name)}</text>`,
    );
  });
  for (const tick of [0.01, 0.1, 1, 10, 100]) {
    out.push(
      `<line x1="${x(tick)}" x2="${x(tick)}" y1="${top - 4}" y2="${height - 24}" stroke="${tick === 1 ? "#000" : "#ddd"}" stroke-width="${tick === 1 ? 1.5 : 1}"/>`,
      `<text x="${x(tick)}" y="${height - 10}" text-anchor="middle">${tick}×</text>`,
    );
  }
  rows.forEach((row, r) => {
    const y = top + r * rowHeight;
    out.push(`<text x="${labelWidth - 6}" y="${y + rowHeight / 2}" text-anchor="end">${escape(row.label)}</text>`);
    engineNames.forEach((name, i) => {
      const score = row.engines[name];
      if (score === undefined || !Number.isFinite(score)) return;
      const by = y + 4 + i * (barHeight + 2);
      out.push(`<rect x="${x(0.01)}" y="${by}" width="${Math.max(1, x(score) - x(0.01))}" height="${barHeight}" fill="${colors[i]}"/>`);
    });
  });
  out.push("</svg>");
  return out.join("\n") + "\n";
}
