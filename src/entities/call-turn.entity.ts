import { Entity, ManyToOne, PrimaryKey, Property, type Rel } from '@mikro-orm/core';
import { Call } from './call.entity.js';

/** A turn of a call's transcript, numbered in the call: who said it (kernel/vocabulary.ts SPEAKERS) and what. */
@Entity({ tableName: 'call_turns' })
export class CallTurn {
  @ManyToOne(() => Call, { primary: true, deleteRule: 'cascade', updateRule: 'cascade' })
  call!: Rel<Call>;

  @PrimaryKey({ type: 'integer' })
  sequence!: number;

  @Property({ type: 'string', length: 16 })
  speaker!: string;

  @Property({ type: 'text' })
  text!: string;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  createdAt!: Date;
}
