// A small, valid PDF made here: one page per item of `pages`, each line of it set in Helvetica.
// Enough for the PDF text tests and benches (no library, no fixture file).

const pdfString = (s: string) => s.replace(/[\\()]/g, (c) => `\\${c}`);

export function makePdf(pages: string[][]): Uint8Array<ArrayBuffer> {
  const objects: string[] = [];
  const add = (body: string) => objects.push(body) - 1 + 1; // object numbers start at 1
  const catalog = add("<< /Type /Catalog /Pages 2 0 R >>");
  const kids: number[] = [];
  add(""); // 2: the page tree, written once the pages are known
  const font = add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>");
  for (const lines of pages) {
    const text = lines.map((l, i) => `BT /F1 12 Tf 72 ${740 - i * 16} Td (${pdfString(l)}) Tj ET`).join("\n");
    const content = add(`<< /Length ${Buffer.byteLength(text)} >>\nstream\n${text}\nendstream`);
    kids.push(
      add(
        `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 ${font} 0 R >> >> /Contents ${content} 0 R >>`,
      ),
    );
  }
  objects[1] = `<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(" ")}] /Count ${kids.length} >>`;
  let out = "%PDF-1.4\n";
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(out));
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out);
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) out += `${String(o).padStart(10, "0")} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root ${catalog} 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return new TextEncoder().encode(out);
}

/** A PDF of `n` pages, each saying which it is and a few lines of filler. */
export function pagesPdf(n: number, lines = 30): Uint8Array<ArrayBuffer> {
  return makePdf(
    Array.from({ length: n }, (_, p) => [
      `Page ${p + 1} of the statement`,
      ...Array.from(
        { length: lines },
        (_, l) => `Line ${l + 1} on page ${p + 1}: amount ${(p * 100 + l) * 3} EUR`,
      ),
    ]),
  );
}
