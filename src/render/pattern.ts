// Sprite patterns (fill-pattern, background-pattern): tiled in world space like MapLibre does, so the
// pattern stays put on the map and turns with the bearing.
import type { DrawContext } from "./draw-context";
import { n } from "./svg";

/** id of a <pattern> def for the sprite image, or null when the sprite lacks it. */
export function patternFill(ctx: DrawContext, name: string): string | null {
  const image = ctx.sprite.get(name);
  if (!image) return null;
  const { cam } = ctx;
  // anchor the pattern grid at the world origin (the view centre's offset modulo the image size)
  const ox = -(cam.cx % image.width);
  const oy = -(cam.cy % image.height);
  const { width, height } = cam.view;
  const bearing = -(cam.angle * 180) / Math.PI;
  return ctx.svg.defOnce(
    `pattern:${name}`,
    (id) =>
      `<pattern id="${id}" patternUnits="userSpaceOnUse" width="${n(image.width)}" height="${n(image.height)}" ` +
      `patternTransform="translate(${n(width / 2)} ${n(height / 2)}) rotate(${n(-bearing)}) translate(${n(ox)} ${n(oy)})">` +
      `<use xlink:href="#${image.id}"/></pattern>`,
  );
}
