import { Arg, Authorized, Ctx, ID, Mutation, Resolver } from 'type-graphql';
import type { RequestContext } from '../context/request-context.js';
import type { LeadErrorMode, LeadImportService } from '../services/lead-import.service.js';
import { LeadErrorMode as LeadErrorModeEnum } from './enums.js';
import { CampaignLeadInput, LeadImportType } from './lead-import.types.js';

@Resolver()
export class LeadImportResolver {
  constructor(private readonly leadImports: LeadImportService) {}

  @Authorized('manage-campaigns')
  @Mutation(() => LeadImportType, {
    description:
      'Leads for a campaign: 1 to 1,000, each with its variables; a key the campaign has is a duplicate, not a ' +
      'second lead (lead.generated for each added)',
  })
  async addCampaignLeads(
    @Ctx() ctx: RequestContext,
    @Arg('campaignId', () => ID) campaignId: string,
    @Arg('leads', () => [CampaignLeadInput]) leads: CampaignLeadInput[],
    @Arg('onError', () => LeadErrorModeEnum, { nullable: true }) onError: LeadErrorMode | null,
  ): Promise<LeadImportType> {
    return this.leadImports.add(ctx, campaignId, leads, onError ?? 'reject');
  }

  @Authorized('manage-campaigns')
  @Mutation(() => LeadImportType, {
    description:
      'Leads for a campaign from a CSV file: a header naming the columns (phone_number; key, first_name, ' +
      'last_name, email, time_zone, source; any other column is a variable), then a lead a row',
  })
  async importCampaignLeads(
    @Ctx() ctx: RequestContext,
    @Arg('campaignId', () => ID) campaignId: string,
    @Arg('csv') csv: string,
    @Arg('onError', () => LeadErrorModeEnum, { nullable: true }) onError: LeadErrorMode | null,
  ): Promise<LeadImportType> {
    return this.leadImports.importCsv(ctx, campaignId, csv, onError ?? 'reject');
  }
}
