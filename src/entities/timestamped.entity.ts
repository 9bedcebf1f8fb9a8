import { type Opt, PrimaryKey, Property } from '@mikro-orm/core';

/** What most tables begin with: a serial id and the times the row was made and last changed (set by the entity). */
export abstract class Timestamped {
  @PrimaryKey({ type: 'integer', autoincrement: true })
  id!: number;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  createdAt: Opt<Date> = new Date();

  @Property({ type: 'datetime', columnType: 'timestamptz', onUpdate: () => new Date() })
  updatedAt: Opt<Date> = new Date();
}
