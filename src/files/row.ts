// The admin row's files fields.
import type { RowContext } from "../admin/rows.ts";

/** The row's files fields: counts (null without a data dir) and a revision over every listing. */
export const filesPart = async ({ services, key }: RowContext) => {
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
