import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { decodeTime } from 'ulid';
import { IdCodec, toBase64Id } from '../src/kernel/ids.js';
import { ulidFactory } from '../src/kernel/ulids.js';

const codec = new IdCodec(randomBytes(32));

describe('id codec', () => {
  it('reads numeric ids', () => {
    assert.equal(codec.decode('12', 'role'), 12);
    assert.equal(codec.decode(12, 'role'), 12);
  });

  it('reads base64 ids (base64 of the decimal text)', () => {
    assert.equal(toBase64Id(1), 'MQ==');
    assert.equal(codec.decode('MQ==', 'role'), 1);
    assert.equal(codec.decode(toBase64Id(123456), 'role'), 123456);
  });

  it('refuses non-canonical or non-decimal base64', () => {
    assert.equal(codec.decode('MQ', 'role'), undefined);
    assert.equal(codec.decode(Buffer.from('abc').toString('base64'), 'role'), undefined);
    assert.equal(codec.decode(Buffer.from('01').toString('base64'), 'role'), undefined);
    assert.equal(codec.decode(Buffer.from('-1').toString('base64'), 'role'), undefined);
  });

  it('round-trips encrypted ids, bound to their type', () => {
    const encrypted = codec.encrypt('role', 42);
    assert.match(encrypted, /^[A-Za-z0-9_-]+$/);
    assert.equal(codec.decode(encrypted, 'role'), 42);
    assert.equal(codec.decode(encrypted, 'phone_number'), undefined, 'a role id must not open a phone number');
    assert.notEqual(codec.encrypt('role', 42), encrypted, 'each encryption uses a fresh IV');
  });

  it('refuses encrypted ids under another key or tampered with', () => {
    const other = new IdCodec(randomBytes(32)).encrypt('role', 42);
    assert.equal(codec.decode(other, 'role'), undefined);
    const good = codec.encrypt('role', 42);
    const tampered = `${good.slice(0, -2)}${good.endsWith('AA') ? 'BB' : 'AA'}`;
    assert.equal(codec.decode(tampered, 'role'), undefined);
  });

  it('honours the forms a route accepts', () => {
    assert.equal(codec.decode('12', 'pipeline', ['base64']), undefined);
    assert.equal(codec.decode('MTI=', 'pipeline', ['base64']), 12);
    assert.equal(codec.decode(codec.encrypt('pipeline', 12), 'pipeline', ['base64']), undefined);
    assert.equal(codec.decode('MTI=', 'role', ['numeric']), undefined);
  });

  it('treats zero as no id unless allowed (the "no folder" id)', () => {
    assert.equal(codec.decode('0', 'folder'), undefined);
    assert.equal(codec.decode('MA==', 'folder'), undefined);
    assert.equal(codec.decode('MA==', 'folder', ['base64'], true), 0);
  });

  it('refuses garbage', () => {
    for (const raw of ['', ' ', '1.5', '-3', 'abc', '1e3', '9'.repeat(20), null, undefined, {}, [], 'x'.repeat(300)]) {
      assert.equal(codec.decode(raw, 'role'), undefined, `accepted ${JSON.stringify(raw)}`);
    }
  });
});

describe('ULIDs from the pooled randomness', () => {
  const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

  it('are ULIDs, unique and increasing, however many share a millisecond', () => {
    const next = ulidFactory();
    const ids = Array.from({ length: 20_000 }, () => next());
    for (const id of ids) assert.match(id, /^[0-9A-HJKMNP-TV-Z]{26}$/);
    assert.equal(new Set(ids).size, ids.length);
    for (let i = 1; i < ids.length; i++) assert.ok(ids[i] > ids[i - 1], `${ids[i]} after ${ids[i - 1]}`);
    // Their time is now.
    assert.ok(Math.abs(decodeTime(ids[0]) - Date.now()) < 5_000);
  });

  it('draw each character of the random part with the same chance, across the pool refills', () => {
    // Ids of different milliseconds each draw a fresh random part: 4,000 of them span 250 refills of the pool.
    const next = ulidFactory();
    const counts = new Map<string, number>();
    let time = Date.now();
    for (let i = 0; i < 4_000; i++)
      for (const char of next(++time).slice(10)) counts.set(char, (counts.get(char) ?? 0) + 1);
    assert.deepEqual([...counts.keys()].sort(), [...CROCKFORD].sort());
    // 64,000 draws over 32 characters: 2,000 expected each; a fair draw stays within 10 % of it
    // (the standard deviation is about 44).
    for (const [char, n] of counts) assert.ok(Math.abs(n - 2_000) < 200, `${char} drawn ${n} times of 64,000`);
  });
});
