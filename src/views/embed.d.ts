// Files embedded with `with { type: "file" }`: the import is the file's path (in the binary, its
// embedded path), read with Bun.file.
declare module "*.css" {
  const path: string;
  export default path;
}
declare module "*.svg" {
  const path: string;
  export default path;
}
declare module "htmx.org/dist/htmx.min.js" {
  const path: string;
  export default path;
}
declare module "htmx.org/dist/ext/hx-sse.min.js" {
  const path: string;
  export default path;
}
declare module "htmx.org/dist/ext/hx-upsert.min.js" {
  const path: string;
  export default path;
}
