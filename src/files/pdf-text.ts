// A PDF's text, for a model to read: a download (or a kept file, a print) read by unpdf (Mozilla's
// pdf.js, serverless build, inside the server and the compiled binary), in parts of about a
// read_page's length, each ending on a page where it can. A file's pages are read once and kept
// (a few files per server) while its name, size and time stay the same.
import { LRUCache } from "lru-cache";
import { badInput, conflict } from "../errors.ts";
import { type FileEntry, type Folder, UNFINISHED, unfinishedText, uriOf } from "./uris.ts";

/** What reading a PDF needs of Files: its entry and its bytes. */
interface FileSource {
  item(workspace: string, folder: Folder, name: string): Promise<FileEntry>;
  read(workspace: string, uri: string): Promise<{ data: Uint8Array }>;
}

/** About as long as a read_page part (its max_length default). */
export const PART_CHARS = 6_000;

export interface PdfTextPart {
  uri: string;
  /** The PDF's pages. */
  pages: number;
  part: number;
  parts: number;
  /** The pages this part covers (1-based, inclusive). */
  from_page: number;
  to_page: number;
  text: string;
  /** The next part's uri; absent on the last. */
  next?: string;
}

interface Piece {
  page: number;
  text: string;
}

/** Splits pages into parts of at most `max` characters: whole pages together, a longer page cut. */
export function partsOf(pages: string[], max = PART_CHARS): Piece[][] {
  const parts: Piece[][] = [];
  let current: Piece[] = [];
  let size = 0;
  const flush = () => {
    if (current.length) parts.push(current);
    current = [];
    size = 0;
  };
  pages.forEach((raw, i) => {
    const text = raw.trim();
    for (let at = 0; at < Math.max(text.length, 1); at += max) {
      const piece = text.slice(at, at + max);
      if (size + piece.length > max) flush();
      current.push({ page: i + 1, text: piece });
      size += piece.length + 2;
    }
  });
  flush();
  return parts.length ? parts : [[{ page: 1, text: "" }]];
}

/** A one-page PDF: parsing it once readies pdf.js (its first document takes most of a second). */
const TINY =
  "%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n2 0 obj\n<< /Type /Pages /Kids [5 0 R] /Count 1 >>\nendobj\n3 0 obj\n<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>\nendobj\n4 0 obj\n<< /Length 32 >>\nstream\nBT /F1 12 Tf 72 740 Td (x) Tj ET\nendstream\nendobj\n5 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents 4 0 R >>\nendobj\nxref\n0 6\n0000000000 65535 f \n0000000009 00000 n \n0000000058 00000 n \n0000000115 00000 n \n0000000185 00000 n \n0000000267 00000 n \ntrailer\n<< /Size 6 /Root 1 0 R >>\nstartxref\n393\n%%EOF\n";

export class PdfTexts {
  private warming: Promise<unknown> | null = null;

  /** Each file's pages as text, by workspace, uri, size and time. */
  private readonly cache = new LRUCache<string, Promise<string[]>>({ max: 16 });

  constructor(private readonly files: FileSource) {}

  /** Readies pdf.js in the background, once: a listing that shows a PDF does, so reading it is quick. */
  warm(): Promise<unknown> {
    this.warming ??= pdfPages(new TextEncoder().encode(TINY)).catch(() => undefined);
    return this.warming;
  }

  /** Part `part` (1-based) of the text of the PDF `name` in `folder`. */
  async part(workspace: string, folder: Folder, name: string, part: number): Promise<PdfTextPart> {
    const uri = uriOf(folder, name);
    if (folder === "downloads" && UNFINISHED.test(name)) throw conflict(unfinishedText(uri));
    if (!/\.pdf$/i.test(name)) throw badInput(`${uri} is not a PDF: only a PDF's text is read here`, "name");
    if (!Number.isInteger(part) || part < 1) throw badInput("the part is a whole number from 1", "part");
    const entry = await this.files.item(workspace, folder, name);
    const key = JSON.stringify([workspace, uri, entry.size, entry.modified]);
    let pages = this.cache.get(key);
    if (!pages) {
      pages = this.files.read(workspace, uri).then(({ data }) => pdfPages(data));
      this.cache.set(key, pages);
      pages.catch(() => this.cache.delete(key));
    }
    const all = partsOf(await pages);
    const here = all[part - 1];
    if (!here) throw badInput(`${uri} has ${all.length} part${all.length === 1 ? "" : "s"} of text`, "part");
    const out: PdfTextPart = {
      uri: `${uri}/text/${part}`,
      pages: (await pages).length,
      part,
      parts: all.length,
      from_page: here[0]!.page,
      to_page: here.at(-1)!.page,
      text: here.map((p) => p.text).join("\n\n"),
    };
    if (part < all.length) out.next = `${uri}/text/${part + 1}`;
    return out;
  }
}

/** Each page's text; a 400 when the bytes are not a PDF pdf.js can read. */
async function pdfPages(data: Uint8Array): Promise<string[]> {
  const { extractText, getDocumentProxy } = await import("unpdf");
  try {
    // pdf.js takes the buffer over (detaches it): it gets a copy.
    const pdf = await getDocumentProxy(data.slice());
    try {
      return (await extractText(pdf, { mergePages: false })).text;
    } finally {
      await pdf.cleanup().catch(() => undefined);
    }
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw badInput(`the file could not be read as a PDF (${why.slice(0, 200)})`);
  }
}
