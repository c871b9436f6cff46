// The console's HTML page with the appliance version filled in, in two forms. The session cookie is
// HttpOnly, so only the server can tell whether a request carries one: the page for such a request says
// so (<body data-session="cookie">) and the script then asks GET /api/v1/session; without it the
// sign-in form shows at once, with no request that would answer 401 in the browser's console.
// {{BASE}} is PUBLIC_URL's path prefix ("/maps", or nothing): the page's links and <html data-base>, from
// which the scripts take it (lib/state.js), so every URL the console asks for stays under the prefix.
import pageHtmlText from "./index.html" with { type: "text" };

export interface ConsolePages {
  withSessionCookie: string;
  withoutSessionCookie: string;
}

export function consolePages(version: string, basePath = ""): ConsolePages {
  // Bun's types describe HTML imports as bundles; with { type: "text" } it is the file's text.
  // config.ts allows only [A-Za-z0-9._~-] in the prefix's segments; the filter keeps that true here.
  const page = (pageHtmlText as unknown as string).replaceAll("{{VERSION}}", version.replace(/[^\w.+-]/g, "")).replaceAll("{{BASE}}", basePath.replace(/[^\w.~\/-]/g, ""));
  return { withSessionCookie: page.replace("<body>", '<body data-session="cookie">'), withoutSessionCookie: page };
}
