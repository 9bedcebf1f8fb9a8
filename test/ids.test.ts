import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { IdCodec, toBase64Id } from '../src/kernel/ids.js';

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
