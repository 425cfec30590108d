// The agent guide: markdown pages served as skill://selenium-flow/… resources and GET /skill/….
// Pages are embedded at build time, so the binary carries them.

import filesGuide from "../../docs/skill/references/FILES.md" with { type: "text" };
import flowsGuide from "../../docs/skill/references/FLOWS.md" with { type: "text" };
import recordingsGuide from "../../docs/skill/references/RECORDINGS.md" with { type: "text" };
import secretsGuide from "../../docs/skill/references/SECRETS.md" with { type: "text" };
import siteDataGuide from "../../docs/skill/references/SITE_DATA.md" with { type: "text" };
import troubleshootingGuide from "../../docs/skill/references/TROUBLESHOOTING.md" with { type: "text" };
import skill from "../../docs/skill/SKILL.md" with { type: "text" };
import { defineResource, type ResourceDef } from "../actions/resource.ts";

export interface GuidePage {
  /** Path under skill://selenium-flow/ (and /skill/). */
  path: string;
  title: string;
  description: string;
  text: string;
}

// Capabilities add their pages here (references/SITE_DATA.md, …).
export const GUIDE: GuidePage[] = [
  {
    path: "SKILL.md",
    title: "How to drive the browser",
    description: "Start here: the first five minutes, every tool in one table, and the rules of thumb.",
    text: skill,
  },
  {
    path: "references/SECRETS.md",
    title: "Secrets",
    description:
      "How to see which secrets exist, type one into a field without seeing it, what is refused, and a sign-in that ends with save_site_data.",
    text: secretsGuide,
  },
  {
    path: "references/SITE_DATA.md",
    title: "Site data",
    description:
      "Stay signed in across a new browser: when to save, what comes back, restored but still signed out, starting as a new user, debugging, limits.",
    text: siteDataGuide,
  },
  {
    path: "references/FLOWS.md",
    title: "Flows",
    description:
      "Save a sequence of calls you will repeat and run it server-side in one call: the YAML format, params, secrets in steps, the run report, and a sign-in flow that ends with save_site_data.",
    text: flowsGuide,
  },
  {
    path: "references/FILES.md",
    title: "Files",
    description:
      "Screenshots, prints, downloads and what you keep: the folders under workspace://files, entries and signed links, keep_file, upload_file, and what only the admin does.",
    text: filesGuide,
  },
  {
    path: "references/RECORDINGS.md",
    title: "Recordings",
    description:
      "A video of the browser for a person to watch: open_session(record=true), where and when the video appears, keeping it, and what to do when it does not.",
    text: recordingsGuide,
  },
  {
    path: "references/TROUBLESHOOTING.md",
    title: "Troubleshooting",
    description:
      "What a refusal means and what to do: an element that does not match or is covered, a dialog, a slow page, a busy Grid, secrets refused, signed in yesterday and signed out today, flows, files and recordings.",
    text: troubleshootingGuide,
  },
];

export function guideResources(): ResourceDef[] {
  return GUIDE.map((page) =>
    defineResource({
      uri: `skill://selenium-flow/${page.path}`,
      name: `skill-${page.path
        .replace(/\.md$/, "")
        .replace(/[^A-Za-z0-9]+/g, "-")
        .toLowerCase()}`,
      title: page.title,
      description: page.description,
      http: `/skill/${page.path}`,
      mimeType: "text/markdown",
      perWorkspace: false,
      read: async () => page.text,
    }),
  );
}
