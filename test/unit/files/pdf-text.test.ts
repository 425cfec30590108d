import { describe, expect, test } from "bun:test";
import { PART_CHARS, PdfTexts, partsOf } from "../../../src/files/pdf-text.ts";
import { pagesPdf } from "../../support/pdf.ts";

const source = (data: Uint8Array, reads: { n: number } = { n: 0 }) => ({
  item: async (_w: string, _f: string, name: string) =>
    ({ name, size: data.length, modified: "2026-01-01T00:00:00.000Z" }) as never,
  read: async () => {
    reads.n++;
    return { data };
  },
});

describe("a PDF's text", () => {
  test("parts hold whole pages up to about a read_page's length; a longer page is cut", () => {
    const parts = partsOf(["a".repeat(10), "b".repeat(PART_CHARS - 20), "c".repeat(PART_CHARS * 2 + 5)]);
    expect(parts.map((p) => p.map((x) => x.page))).toEqual([[1, 2], [3], [3], [3]]);
    expect(partsOf([])).toEqual([[{ page: 1, text: "" }]]);
  });

  test("a 20-page PDF reads in parts, each naming its pages and the next; read once, in under a second", async () => {
    const reads = { n: 0 };
    const texts = new PdfTexts(source(pagesPdf(20), reads));
    // A listing that shows a PDF readies pdf.js (its first document takes most of a second).
    await texts.warm();
    const t0 = performance.now();
    const first = await texts.part("w", "downloads", "statement.pdf", 1);
    const ms = performance.now() - t0;
    expect(ms).toBeLessThan(1000);
    expect(first.pages).toBe(20);
    expect(first.from_page).toBe(1);
    expect(first.text).toStartWith("Page 1 of the statement");
    expect(first.next).toBe("workspace://files/downloads/statement.pdf/text/2");
    let part = first;
    const seen = [first.text];
    while (part.next) {
      part = await texts.part("w", "downloads", "statement.pdf", part.part + 1);
      seen.push(part.text);
    }
    expect(part.to_page).toBe(20);
    expect(part.parts).toBe(first.parts);
    expect(seen.join("\n")).toContain("Line 30 on page 20: amount 5787 EUR");
    expect(reads.n).toBe(1);
  });

  test("not a PDF, an unfinished download, a part past the end: 4xx that say so", async () => {
    const texts = new PdfTexts(source(new TextEncoder().encode("not a pdf at all")));
    await expect(texts.part("w", "downloads", "x.pdf", 1)).rejects.toThrow("could not be read as a PDF");
    await expect(texts.part("w", "downloads", "x.pdf.crdownload", 1)).rejects.toThrow("has not finished");
    await expect(texts.part("w", "downloads", "x.csv", 1)).rejects.toThrow("is not a PDF");
    const ok = new PdfTexts(source(pagesPdf(1)));
    await expect(ok.part("w", "files", "p.pdf", 9)).rejects.toThrow("has 1 part of text");
  });
});
