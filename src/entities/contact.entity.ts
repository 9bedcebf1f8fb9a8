import { Entity, Index, Property, Unique, type Opt } from '@mikro-orm/core';
import { CompanyOwned } from './company-owned.js';

/** A person calls, SMS and leads concern; its fields are the webhook form data fields. */
@Entity({ tableName: 'contacts' })
@Unique({ properties: ['company', 'phoneNumber'] })
@Index({ properties: ['company', 'createdAt'] })
export class Contact extends CompanyOwned {
  @Property({ length: 20 }) phoneNumber!: string;
  @Property({ length: 255, nullable: true }) email?: string | null;
  @Property({ length: 255, nullable: true }) firstName?: string | null;
  @Property({ length: 255, nullable: true }) lastName?: string | null;
  @Property({ length: 255, nullable: true }) address?: string | null;
  @Property({ length: 255, nullable: true }) city?: string | null;
  @Property({ length: 255, nullable: true }) state?: string | null;
  @Property({ length: 32, nullable: true }) zip?: string | null;
  @Property({ length: 64, nullable: true }) country?: string | null;
  @Property({ length: 255, nullable: true }) companyName?: string | null;
  @Property({ type: 'json', default: '[]' }) tags: Opt<string[]> = [];
  @Property({ type: 'json', default: '{}' }) customFields: Opt<Record<string, unknown>> = {};
}
