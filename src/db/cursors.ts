import { ValidationError } from '../kernel/errors.js';

/** Where a page ended: the last row's sort key (PostgreSQL's text of it) and id, and the position after it. */
export interface Cursor {
  key: string;
  id: number;
  position: number;
}

/** Cursors are opaque to clients: base64url of the JSON [key, id, position]. */
export const cursors = {
  encode: (cursor: Cursor): string =>
    Buffer.from(JSON.stringify([cursor.key, cursor.id, cursor.position])).toString('base64url'),
  /** The cursor, or a 422 naming `after`. */
  decode(text: string): Cursor {
    try {
      if (text.length <= 200 && /^[A-Za-z0-9_-]+$/.test(text)) {
        const [key, id, position] = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as unknown[];
        if (
          typeof key === 'string' &&
          key.length <= 64 &&
          Number.isSafeInteger(id) &&
          Number.isSafeInteger(position) &&
          (position as number) >= 0
        ) {
          return { key, id: id as number, position: position as number };
        }
      }
    } catch {
      // reported below
    }
    throw ValidationError.field('after', 'The after field is not a cursor this list gave.');
  },
};
