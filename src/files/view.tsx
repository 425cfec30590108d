// The Files tab (README, Files): Screenshots, Recordings, Files, Downloads; Keep moves a
// screenshot or recording into Files (copies a download); Clear empties a folder after a confirm.
import { plural } from "../views/format.ts";
import type { Slice } from "../views/parts.tsx";
import { attr, Confirm, Opens, Rev, Total } from "../views/parts.tsx";
import { paneUrl } from "../views/urls.ts";
import type { FileEntry as FullFileEntry } from "./uris.ts";

/** The Files pane's slice of a file's entry (src/files/uris.ts): its name, the rest optional. */
export type FileEntry = Slice<FullFileEntry, "name">;

export interface FilesPayload {
  /** Why files are off on this server, when they are. */
  off?: string;
  screenshots?: FileEntry[];
  recordings?: FileEntry[];
  files?: FileEntry[];
  downloads?: FileEntry[];
}

type Folder = "screenshots" | "recordings" | "files" | "downloads";

const FOLDERS: ReadonlyArray<{ folder: Folder; title: string; one: string; clear: boolean }> = [
  { folder: "screenshots", title: "Screenshots", one: "screenshot", clear: true },
  { folder: "recordings", title: "Recordings", one: "recording", clear: true },
  { folder: "files", title: "Files", one: "file", clear: false },
  { folder: "downloads", title: "Downloads", one: "download", clear: false },
];

const cap = (s: string) => s[0]?.toUpperCase() + s.slice(1);
const isVideo = (f: FileEntry) =>
  (f.content_type ?? "").startsWith("video/") || /\.(mp4|webm)$/i.test(f.name);
const isImage = (f: FileEntry) => f.image === true || (f.content_type ?? "").startsWith("image/");

function glyphFor(f: FileEntry): string {
  if (isVideo(f)) return "🎬";
  if (isImage(f)) return "🖼";
  if ((f.content_type ?? "").includes("pdf") || /\.pdf$/i.test(f.name)) return "📕";
  return "📄";
}

function Tile(props: { workspace: string; folder: Folder; file: FileEntry; index: number }): JSX.Element {
  const { file: f, folder } = props;
  const keepUrl = `${paneUrl(props.workspace, "files")}/${folder}/${encodeURIComponent(f.name)}/keep`;
  const remove = `${folder}Delete${props.index}`;
  const keep =
    folder === "files" ? (
      <Opens dialog={remove} title="Delete">
        ✕
      </Opens>
    ) : (
      <button type="button" class="keep" title="Keep" hx-post={attr(keepUrl)} hx-target="#paneFiles">
        📌
      </button>
    );
  const box = `${folder}Lightbox${props.index}`;
  let thumb: JSX.Element;
  if (isVideo(f) && f.url) {
    thumb = (
      <button type="button" class="thumb" commandfor={box} command="show-modal" title={attr(f.name)}>
        <span class="glyph">🎬</span>
        <span class="play" aria-hidden="true">
          ▶
        </span>
      </button>
    );
  } else if (isImage(f) && f.url) {
    thumb = (
      <a class="thumb" href={attr(f.url)} target="_blank" rel="noopener">
        <img src={attr(f.url)} alt={attr(f.name)} loading="lazy" />
      </a>
    );
  } else {
    thumb = f.url ? (
      <a class="thumb" href={attr(f.url)} target="_blank" rel="noopener">
        <span class="glyph">{glyphFor(f)}</span>
      </a>
    ) : (
      <span class="thumb">
        <span class="glyph">{glyphFor(f)}</span>
      </span>
    );
  }
  return (
    <figure class="tile">
      {thumb}
      <figcaption>
        <span class="name clip" title={attr(f.name)} safe>
          {f.name}
        </span>
        {keep}
      </figcaption>
      {folder === "files" ? (
        <Confirm
          id={remove}
          title="Delete file"
          body={f.name}
          pairs={[]}
          verb="Delete"
          action={{
            method: "delete",
            url: `${paneUrl(props.workspace, "files")}/${encodeURIComponent(f.name)}`,
            target: "#paneFiles",
          }}
        />
      ) : (
        ""
      )}
      {isVideo(f) && f.url ? (
        <dialog class="lightbox" id={box} aria-label={attr(f.name)}>
          {/* biome-ignore lint/a11y/useMediaCaption: a browser's screen recording has no speech to caption */}
          <video controls preload="metadata" src={attr(f.url)} />
          <div class="buttons">
            <button type="button" commandfor={box} command="close">
              Close
            </button>
            {folder === "files" ? (
              ""
            ) : (
              <button type="button" hx-post={attr(keepUrl)} hx-target="#paneFiles">
                📌 Keep
              </button>
            )}
          </div>
        </dialog>
      ) : (
        ""
      )}
    </figure>
  );
}

export function filesTotal(data: Required<FilesPayload>): number {
  return FOLDERS.reduce((n, f) => n + data[f.folder].length, 0);
}

export function FilesPane(props: {
  workspace: string;
  data: Required<FilesPayload>;
  rev: string;
}): JSX.Element {
  const { workspace, data } = props;
  const url = paneUrl(workspace, "files");
  return (
    <>
      <Rev rev={props.rev} />
      {data.off ? (
        <p class="empty" safe>
          {data.off}
        </p>
      ) : (
        ""
      )}
      {FOLDERS.map(({ folder, title, one, clear }) => {
        const entries = data[folder];
        const n = entries.length;
        const confirm = `clear${cap(folder)}Confirm`;
        return (
          <section class="section folder" id={`${folder}Section`}>
            <div class="head">
              <span class="title">{title}</span>
              <span class="count">{String(n)}</span>
              {clear ? (
                <span class="actions">
                  <Opens
                    id={`clear${cap(folder)}`}
                    dialog={confirm}
                    disabled={n === 0}
                    title={`Delete every ${one}. Anything you kept is in Files and stays.`}
                  >
                    {`Clear ${folder}`}
                  </Opens>
                </span>
              ) : (
                ""
              )}
            </div>
            <div class="grid" id={folder}>
              {n ? (
                entries.map((f, i) => <Tile workspace={workspace} folder={folder} file={f} index={i} />)
              ) : (
                <p class="empty">{`No ${folder} yet.`}</p>
              )}
            </div>
            {clear && n ? (
              <Confirm
                id={confirm}
                title={`Clear ${folder}`}
                body={`${plural(n, one)} — Files is untouched.`}
                pairs={[{ fate: "goes", text: entries.map((f) => f.name).join(" · ") }]}
                verb={`Delete ${plural(n, one)}`}
                action={{ method: "delete", url: `${url}/${folder}`, target: "#paneFiles" }}
              />
            ) : (
              ""
            )}
          </section>
        );
      })}
      <Total id="filesTotal" n={filesTotal(data)} oob />
    </>
  );
}
