// What every public read function returns: an HTTP answer without a framework, so Elysia's handlers
// and Bun's `routes` table can both send it (go-pmtiles' Get -> (status, headers, body)).
export interface ReadAnswer {
  status: number;
  headers: Record<string, string>;
  body: Uint8Array | string | null;
}

/** Cache-Control of a versioned URL: its bytes never change. */
export const IMMUTABLE = "public, max-age=31536000, immutable";
/** Cache-Control of a stable URL (the published version, which a publish moves). */
export const STABLE = "public, max-age=60";

/**
 * An answer kept with cached content and sent again and again: frozen, headers included. The fast path
 * (src/http/fast-routes.ts) builds the wire headers of a frozen answer once and reuses them, which is
 * most of what a small answer costs beyond Bun's own work; answers built per request stay plain objects.
 */
export function fixedAnswer(status: number, headers: Record<string, string>, body: ReadAnswer["body"]): ReadAnswer {
  return Object.freeze({ status, headers: Object.freeze(headers), body });
}
