import { CompanyOwned } from './company-owned.entity.js';
import { Entity, Index, type Opt, Property, Unique } from '@mikro-orm/core';

/** A person a company has called or texted, one per phone number in the company. */
@Entity({ tableName: 'contacts' })
@Unique({ name: 'contacts_company_id_phone_number_unique', properties: ['company', 'phoneNumber'] })
@Index({ name: 'contacts_company_id_created_at_index', properties: ['company', 'createdAt'] })
export class Contact extends CompanyOwned {
  @Property({ type: 'string', length: 20 })
  phoneNumber!: string;

  @Property({ type: 'string', length: 255, nullable: true })
  email: string | null = null;

  @Property({ type: 'string', length: 255, nullable: true })
  firstName: string | null = null;

  @Property({ type: 'string', length: 255, nullable: true })
  lastName: string | null = null;

  @Property({ type: 'string', length: 255, nullable: true })
  address: string | null = null;

  @Property({ type: 'string', length: 255, nullable: true })
  city: string | null = null;

  @Property({ type: 'string', length: 255, nullable: true })
  state: string | null = null;

  @Property({ type: 'string', length: 32, nullable: true })
  zip: string | null = null;

  @Property({ type: 'string', length: 64, nullable: true })
  country: string | null = null;

  @Property({ type: 'string', length: 255, nullable: true })
  companyName: string | null = null;

  @Property({ type: 'json', default: '[]' })
  tags: Opt<string[]> = [];

  @Property({ type: 'json', default: '{}' })
  customFields: Opt<Record<string, unknown>> = {};
}
