// static/ui.js is embedded as a file (`with { type: "file" }`): its import is the path.
declare const path: string;
export default path;
