// Label collision: placed boxes in a uniform grid of screen cells so a candidate is tested only against
// boxes in the cells it touches.
export interface CollisionBox {
  x1: number;
  y1: number;
  x2: number;
  y2: number;
}

const CELL_PX = 64;

export class CollisionIndex {
  private readonly cells = new Map<number, CollisionBox[]>();
  private readonly cols: number;

  constructor(width: number, height: number) {
    this.cols = Math.ceil(width / CELL_PX) + 8;
  }

  /** Whether none of the boxes overlaps a placed box. */
  fits(boxes: CollisionBox[]): boolean {
    for (const b of boxes) {
      for (const key of this.cellKeys(b)) {
        const placed = this.cells.get(key);
        if (!placed) continue;
        for (const p of placed) if (b.x1 < p.x2 && b.x2 > p.x1 && b.y1 < p.y2 && b.y2 > p.y1) return false;
      }
    }
    return true;
  }

  insert(boxes: CollisionBox[]): void {
    for (const b of boxes) {
      for (const key of this.cellKeys(b)) {
        let list = this.cells.get(key);
        if (!list) this.cells.set(key, (list = []));
        list.push(b);
      }
    }
  }

  private *cellKeys(b: CollisionBox): Generator<number> {
    // cells start 4 cells left of/above the view so labels hanging over its edge collide as well
    const x1 = Math.max(0, Math.floor(b.x1 / CELL_PX) + 4);
    const x2 = Math.min(this.cols - 1, Math.floor(b.x2 / CELL_PX) + 4);
    const y1 = Math.max(0, Math.floor(b.y1 / CELL_PX) + 4);
    const y2 = Math.floor(b.y2 / CELL_PX) + 4;
    for (let y = y1; y <= y2; y++) for (let x = x1; x <= x2; x++) yield y * this.cols + x;
  }
}
