// Files imported with `with { type: "file" }` resolve to a path (a bunfs path inside the binary).
declare module "*.wasm" {
  const path: string;
  export default path;
}
declare module "*.data" {
  const path: string;
  export default path;
}
declare module "*.tar.gz" {
  const path: string;
  export default path;
}
declare module "*.sql" {
  const text: string;
  export default text;
}
// The settings app's files, embedded in the binary as text (src/http/web.ts).
declare module "*.css" {
  const text: string;
  export default text;
}
declare module "*.svg" {
  const text: string;
  export default text;
}
// The search lexicon (src/memory/lexicon): embedded as a file, read on first use.
declare module "*.bin" {
  const path: string;
  export default path;
}
declare module "*.sha256" {
  const text: string;
  export default text;
}
