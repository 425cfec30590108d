// The admin row's files fields.
import type { RowContext } from "../admin/rows.ts";
import type { FilesNeeds } from "./admin.ts";

/** The row's files fields: counts (null without a data dir) and a revision over every listing. */
export const filesPart = async ({ services, key }: RowContext<FilesNeeds>) => {
  const { counts, revision } = await services.files.summary(key);
  return {
    counts: {
      files: counts.files,
      screenshots: counts.screenshots,
      downloads: counts.downloads,
      recordings: counts.recordings,
    },
    files_rev: revision,
  };
};
