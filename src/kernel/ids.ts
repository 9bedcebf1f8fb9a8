import { DEFAULT_BOUNDS } from './bounds.js';
import { SecretBox } from '../crypto/secret-box.js';

// The one way every route reads an id (docs/design.md §3).
//   numeric:   "12"
//   base64:    base64 of the decimal text, "MTI="
//   encrypted: base64url(iv | tag | AES-256-GCM("<type>:12")) under APP_KEY,
//              bound to its type so one kind's id never opens another kind.

/** The largest id a record can have: record ids are PostgreSQL `integer`s; a larger one names no record. */
const MAX_RECORD_ID = 2_147_483_647;

export type IdForm = 'numeric' | 'base64' | 'encrypted';
export const ALL_ID_FORMS: readonly IdForm[] = ['numeric', 'base64', 'encrypted'];

const DIGITS = /^[0-9]{1,15}$/;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

export function toBase64Id(id: number): string {
  return Buffer.from(String(id), 'utf8').toString('base64');
}

export class IdCodec {
  private readonly box: SecretBox;

  constructor(key: Buffer) {
    this.box = new SecretBox(key);
  }

  encrypt(type: string, id: number): string {
    return this.box.seal(`${type}:${id}`);
  }

  /**
   * Reads an id in any of the allowed forms. Returns undefined for anything
   * that is not a positive id of this type; callers answer that with 404.
   * `allowZero` admits the base64 of "0" (the "no folder" id).
   */
  decode(raw: unknown, type: string, forms: readonly IdForm[] = ALL_ID_FORMS, allowZero = false): number | undefined {
    if (typeof raw === 'number' && forms.includes('numeric')) raw = String(raw);
    if (typeof raw !== 'string' || raw.length === 0 || raw.length > DEFAULT_BOUNDS.id.maxLength) return undefined;
    let id: number | undefined;
    if (DIGITS.test(raw)) {
      id = forms.includes('numeric') ? Number(raw) : undefined;
    } else {
      id =
        (forms.includes('base64') ? this.fromBase64(raw) : undefined) ??
        (forms.includes('encrypted') ? this.fromEncrypted(raw, type) : undefined);
    }
    if (id === undefined || !Number.isSafeInteger(id) || id > MAX_RECORD_ID) return undefined;
    if (id === 0 ? !allowZero : id < 0) return undefined;
    return id;
  }

  private fromBase64(raw: string): number | undefined {
    if (!BASE64.test(raw) || raw.length % 4 !== 0) return undefined;
    const text = Buffer.from(raw, 'base64').toString('utf8');
    // Only the canonical encoding of a decimal counts, so "MQ" or "MQ==\n" do not alias "1".
    if (!DIGITS.test(text) || String(Number(text)) !== text || toBase64Id(Number(text)) !== raw) return undefined;
    return Number(text);
  }

  private fromEncrypted(raw: string, type: string): number | undefined {
    if (!BASE64URL.test(raw)) return undefined;
    const [kind, id] = (this.box.open(raw) ?? '').split(':');
    if (kind !== type || !DIGITS.test(id ?? '')) return undefined;
    return Number(id);
  }
}
