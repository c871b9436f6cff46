// How much text of small features lies in an area, answered without reading the store: the tiler asks
// for every tile it visits above the blocks it can hold in memory, and a range query there would read most
// of the input again at every zoom. Each feature counts once, at the deepest level (zoom COARSEST..FINEST)
// whose cells are at least its size, in the cell holding its top-left corner, so it reaches at most one
// cell further right and down. A box's figure sums, per level, the cells it touches and their left and
// upper neighbours from a summed-area table: never less than the text of the features reaching into the
// box. Features larger than a COARSEST cell are left to the caller: counted here, one would weigh on
// every box of its big cell.
import type { UnitBox } from "./feature-store";

/** The coarsest level: zoom 6 cells (about 625 km at the equator). */
export const COARSEST = 6;
/** The finest level: zoom 10 cells (about 39 km at the equator), 1024 x 1024 of them. */
export const FINEST = 10;

export class DensityGrid {
  /** level L: (2^L + 1)^2 values; before seal() cell sums at [row + 1][column + 1], after it prefix sums */
  private readonly levels: Float64Array[] = [];
  private sealedGrid = false;

  constructor() {
    for (let level = COARSEST; level <= FINEST; level++) this.levels.push(new Float64Array(((1 << level) + 1) ** 2));
  }

  /** Whether a feature of this extent is small enough to be counted here. */
  static holds(box: UnitBox): boolean {
    return Math.max(box[2] - box[0], box[3] - box[1]) <= 1 / (1 << COARSEST);
  }

  /** Counts `chars` characters of text for a feature with this extent (clamped to the unit square); see holds(). */
  add(box: UnitBox, chars: number): void {
    if (this.sealedGrid) throw new Error("DensityGrid.add() after seal()");
    const x0 = clamp(box[0]);
    const y0 = clamp(box[1]);
    const size = Math.max(clamp(box[2]) - x0, clamp(box[3]) - y0);
    if (size > 1 / (1 << COARSEST)) throw new Error("DensityGrid.add() of a feature larger than its coarsest cells");
    const level = size > 0 ? Math.min(FINEST, Math.floor(-Math.log2(size))) : FINEST;
    const n = 1 << level;
    const column = Math.min(n - 1, Math.floor(x0 * n));
    const row = Math.min(n - 1, Math.floor(y0 * n));
    this.levels[level - COARSEST]![(row + 1) * (n + 1) + column + 1]! += chars;
  }

  /** Ends counting: turns every level into a summed-area table. */
  seal(): void {
    if (this.sealedGrid) return;
    this.sealedGrid = true;
    for (const [i, sums] of this.levels.entries()) {
      const width = (1 << (COARSEST + i)) + 1;
      for (let row = 1; row < width; row++)
        for (let column = 1; column < width; column++) {
          const i = row * width + column;
          sums[i]! += sums[i - 1]! + sums[i - width]! - sums[i - width - 1]!;
        }
    }
  }

  /** An upper bound on the characters of the features reaching into the box. */
  charsIn(box: UnitBox): number {
    if (!this.sealedGrid) throw new Error("DensityGrid.charsIn() before seal()");
    const [x0, y0, x1, y1] = [clamp(box[0]), clamp(box[1]), clamp(box[2]), clamp(box[3])];
    let total = 0;
    for (const [i, sums] of this.levels.entries()) {
      const n = 1 << (COARSEST + i);
      const width = n + 1;
      // A feature anchored one cell left of or above the box may reach into it.
      const c0 = Math.max(0, Math.floor(x0 * n) - 1);
      const r0 = Math.max(0, Math.floor(y0 * n) - 1);
      const c1 = Math.min(n - 1, Math.floor(x1 * n));
      const r1 = Math.min(n - 1, Math.floor(y1 * n));
      total += sums[(r1 + 1) * width + c1 + 1]! - sums[r0 * width + c1 + 1]! - sums[(r1 + 1) * width + c0]! + sums[r0 * width + c0]!;
    }
    return total;
  }
}

function clamp(v: number): number {
  return v < 0 ? 0 : v > 1 ? 1 : v;
}
