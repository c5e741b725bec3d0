// An Othello model of the tests' own, written from the rules and sharing nothing with the
// engine: a board is 64 characters X, O, - from a1 to h8 (a1 top left, rows of 8), as the page
// shows it. The tests hold every move the page makes to it.

const DIRECTIONS = [[-1, -1], [-1, 0], [-1, 1], [0, -1], [0, 1], [1, -1], [1, 0], [1, 1]];

export function index(square) {
  return (Number(square[1]) - 1) * 8 + (square.charCodeAt(0) - 97);
}

export function name(i) {
  return String.fromCharCode(97 + (i % 8)) + String(Math.floor(i / 8) + 1);
}

function other(color) {
  return color === 'X' ? 'O' : 'X';
}

// The squares `color` turns over by playing on `i` (none: not a legal move).
export function flips(board, i, color) {
  if (board[i] !== '-') return [];
  const row = Math.floor(i / 8);
  const col = i % 8;
  const turned = [];
  for (const [dr, dc] of DIRECTIONS) {
    const line = [];
    let r = row + dr;
    let c = col + dc;
    while (r >= 0 && r < 8 && c >= 0 && c < 8 && board[r * 8 + c] === other(color)) {
      line.push(r * 8 + c);
      r += dr;
      c += dc;
    }
    if (line.length && r >= 0 && r < 8 && c >= 0 && c < 8 && board[r * 8 + c] === color) {
      turned.push(...line);
    }
  }
  return turned;
}

export function legalMoves(board, color) {
  const moves = [];
  for (let i = 0; i < 64; i++) if (flips(board, i, color).length) moves.push(name(i));
  return moves;
}

// The board after `color` plays `square`; throws if the move is illegal.
export function play(board, square, color) {
  const i = index(square);
  const turned = flips(board, i, color);
  if (!turned.length) throw new Error(`${square} is not legal for ${color} on ${board}`);
  const next = board.split('');
  next[i] = color;
  for (const t of turned) next[t] = color;
  return next.join('');
}

export function count(board, color) {
  return board.split('').filter((c) => c === color).length;
}

// Black's final disc difference, the empty squares going to the winner.
export function finalScore(board) {
  const black = count(board, 'X');
  const white = count(board, 'O');
  const empty = 64 - black - white;
  if (black === white) return 0;
  return black > white ? black - white + empty : black - white - empty;
}
