// The refusal of a browser request whose Origin is not PUBLIC_URL's. Most often it is no attack: the
// operator opened the console at another address than PUBLIC_URL (its default is localhost), so the
// message says which setting to change.
import { Forbidden } from "../../errors";

export function crossSiteRefusal(origin: string, publicOrigin: string, tokenHint = false): Forbidden {
  const shown = origin.slice(0, 200);
  return new Forbidden(
    `Cross-site request refused: this page came from ${shown}, but Mapstead's PUBLIC_URL is ${publicOrigin}` +
      (tokenHint ? " (and no valid X-CSRF-Token header was sent)" : "") +
      `. If ${shown} is this server's address, set PUBLIC_URL=${shown} and restart Mapstead.`,
  );
}
