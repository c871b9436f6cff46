// Scope identifiers from CONTRACT.md. Keys never manage keys, users or organizations.
export const SCOPES = ["geocoding", "routing", "elevation", "static_maps", "maps:read", "tilesets:write", "styles:write"] as const;
export type Scope = (typeof SCOPES)[number];

export const isScope = (s: string): s is Scope => (SCOPES as readonly string[]).includes(s);
