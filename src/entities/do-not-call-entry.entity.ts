import { CompanyOwned } from './company-owned.entity.js';
import { Entity, Index, Property, Unique } from '@mikro-orm/core';

/** A number the company's campaigns must never dial: added through the API or the page, or by its owner's SMS STOP (docs/dialer.md). */
@Entity({ tableName: 'do_not_call' })
@Unique({ name: 'do_not_call_company_id_phone_number_unique', properties: ['company', 'phoneNumber'] })
@Index({ name: 'do_not_call_company_id_created_at_id_index', properties: ['company', 'createdAt', 'id'] })
export class DoNotCallEntry extends CompanyOwned {
  /** E.164. */
  @Property({ type: 'string', length: 20 })
  phoneNumber!: string;

  /** How it came on the list (kernel/vocabulary.ts DO_NOT_CALL_SOURCES). */
  @Property({ type: 'string', length: 16 })
  source!: string;

  @Property({ type: 'string', length: 255, nullable: true })
  note: string | null = null;
}
