// The console's HTML page with the appliance version filled in, in two forms. The session cookie is
// HttpOnly, so only the server can tell whether a request carries one: the page for such a request says
// so (<body data-session="cookie">) and the script then asks GET /api/v1/session; without it the
// sign-in form shows at once, with no request that would answer 401 in the browser's console.
import pageHtmlText from "./index.html" with { type: "text" };

export interface ConsolePages {
  withSessionCookie: string;
  withoutSessionCookie: string;
}

export function consolePages(version: string): ConsolePages {
  // Bun's types describe HTML imports as bundles; with { type: "text" } it is the file's text.
  const page = (pageHtmlText as unknown as string).replaceAll("{{VERSION}}", version.replace(/[^\w.+-]/g, ""));
  return { withSessionCookie: page.replace("<body>", '<body data-session="cookie">'), withoutSessionCookie: page };
}
