import { PrimaryKey, Property } from '@mikro-orm/core';

/** What most tables begin with: a serial id and the times the row was made and last changed. */
export abstract class Timestamped {
  @PrimaryKey({ type: 'integer', autoincrement: true })
  id!: number;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  createdAt!: Date;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  updatedAt!: Date;
}
