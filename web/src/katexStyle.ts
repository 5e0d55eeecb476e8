// KaTeX's stylesheet and its woff2 fonts (scripts/build.mjs drops the other font formats), a chunk
// of its own that messageDecorations.ts loads when a message with math is first shown.
import "katex/dist/katex.min.css";
