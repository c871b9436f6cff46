// Files imported as text or as embedded file paths (Bun `with { type }` imports).
declare module "*.sql" {
  const text: string;
  export default text;
}
declare module "*.ttf" {
  const path: string;
  export default path;
}
declare module "*.html" {
  const text: string;
  export default text;
}
