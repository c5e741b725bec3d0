// The board on the page: 64 buttons in a grid, `a1` top left as in the engine's notation.
// Each cell carries its square and disc in data attributes (`data-square`, `data-disc`), which
// the browser tests read; legal moves, the last move, the discs it turned and the hints'
// values are classes and text on the cells.

const FILES = 'abcdefgh';

export function squareName(index) {
  return FILES[index % 8] + String(Math.floor(index / 8) + 1);
}

export class BoardView {
  constructor(element, onSquare) {
    this.element = element;
    this.cells = [];
    for (let index = 0; index < 64; index++) {
      const cell = document.createElement('button');
      cell.type = 'button';
      cell.className = 'cell';
      cell.dataset.square = squareName(index);
      cell.setAttribute('role', 'gridcell');
      cell.addEventListener('click', () => onSquare(cell.dataset.square));
      const disc = document.createElement('span');
      disc.className = 'piece';
      const hint = document.createElement('span');
      hint.className = 'hint';
      cell.append(disc, hint);
      element.append(cell);
      this.cells.push(cell);
    }
  }

  // Draws `state` (Game.state()); `playable` says whether the user may click legal squares.
  render(state, playable) {
    const legal = new Set(state.legal);
    const flipped = new Set(state.flipped);
    this.cells.forEach((cell, index) => {
      const name = cell.dataset.square;
      const disc = state.board[index];
      cell.dataset.disc = disc;
      cell.classList.toggle('black', disc === 'X');
      cell.classList.toggle('white', disc === 'O');
      cell.classList.toggle('legal', legal.has(name) && playable);
      cell.classList.toggle('last', state.last === name);
      cell.classList.toggle('flipped', flipped.has(name));
      cell.disabled = !(legal.has(name) && playable);
      const what = disc === 'X' ? 'black' : disc === 'O' ? 'white' : legal.has(name) ? 'legal move' : 'empty';
      cell.setAttribute('aria-label', `${name} ${what}`);
    });
    this.showHints([]);
  }

  // Writes each hint's value (discs for the side to move) on its square; the best is marked.
  showHints(hints) {
    const best = hints.length ? hints[0].value : null;
    const byMove = new Map(hints.map((h) => [h.move, h]));
    for (const cell of this.cells) {
      const hint = byMove.get(cell.dataset.square);
      const label = cell.querySelector('.hint');
      label.textContent = hint ? formatValue(hint) : '';
      cell.dataset.hint = hint ? String(hint.value) : '';
      cell.classList.toggle('best', Boolean(hint) && hint.value === best);
    }
  }
}

// A value as players read it: +4 for an exact disc count, +1.25 for an estimate, W/D/L.
export function formatValue(report) {
  if (report.kind === 'wld') return report.value > 0 ? 'win' : report.value < 0 ? 'loss' : 'draw';
  if (report.kind === 'exact') return (report.value > 0 ? '+' : '') + report.value.toFixed(0);
  return (report.value > 0 ? '+' : '') + report.value.toFixed(1);
}
