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
