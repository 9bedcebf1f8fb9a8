import { Field, InputType, ObjectType } from 'type-graphql';

// Endpoint credentials in GraphQL (docs/adr/0070-endpoint-credentials.md): what a
// webhook, a decision endpoint or a tool is given, and what is answered of it
// (never a secret or a key).

@InputType('OAuth2CredentialsInput', { description: 'OAuth2 client credentials: a token fetched and sent as Bearer' })
export class OAuth2CredentialsInputType {
  @Field({ description: 'Where the token is fetched (POST grant_type=client_credentials, HTTP Basic)' })
  tokenUrl!: string;
  @Field({ description: 'At most 255 characters' }) clientId!: string;
  @Field({ description: 'At most 1024 characters; stored encrypted, never shown' }) clientSecret!: string;
  @Field(() => String, { nullable: true, description: 'At most 1000 characters' }) scope?: string | null;
}

@InputType('TlsCredentialsInput', { description: 'Client TLS for an https endpoint or a broker over TLS' })
export class TlsCredentialsInputType {
  @Field(() => String, { nullable: true, description: 'PEM, with clientKey: presented for mutual TLS' })
  clientCertificate?: string | null;
  @Field(() => String, { nullable: true, description: 'PEM private key of the client certificate; stored encrypted' })
  clientKey?: string | null;
  @Field(() => String, { nullable: true, description: "PEM of the CA that signs the endpoint's certificate" })
  ca?: string | null;
}

@InputType('EndpointCredentialsInput', {
  description: 'Credentials beside the signature; replaces the endpoint’s (null removes them, left out keeps them)',
})
export class EndpointCredentialsInputType {
  @Field(() => OAuth2CredentialsInputType, { nullable: true }) oauth2?: OAuth2CredentialsInputType | null;
  @Field(() => TlsCredentialsInputType, { nullable: true }) tls?: TlsCredentialsInputType | null;
}

@ObjectType('OAuth2Client', { simpleResolvers: true, description: 'The OAuth2 client an endpoint is reached as' })
export class OAuth2ClientType {
  @Field() tokenUrl!: string;
  @Field() clientId!: string;
  @Field(() => String, { nullable: true }) scope!: string | null;
}

@ObjectType('TlsClient', { simpleResolvers: true, description: 'The client TLS an endpoint is reached with' })
export class TlsClientType {
  @Field(() => String, { nullable: true }) clientCertificateSubject!: string | null;
  @Field(() => Date, { nullable: true }) clientCertificateExpiresAt!: Date | null;
  @Field({ description: "A CA of the company's own is trusted for the endpoint's certificate" }) customCa!: boolean;
}

@ObjectType('EndpointCredentials', { simpleResolvers: true, description: 'Credentials beside the signature' })
export class EndpointCredentialsType {
  @Field(() => OAuth2ClientType, { nullable: true }) oauth2!: OAuth2ClientType | null;
  @Field(() => TlsClientType, { nullable: true }) tls!: TlsClientType | null;
}
