// The one credentials type: the chat server host and an administrator's e-mail and password, sent as HTTP Basic.
import type { IAuthenticateGeneric, Icon, ICredentialType, INodeProperties } from 'n8n-workflow';

export class SvcApi implements ICredentialType {
	name = 'svcApi';

	displayName = 'Svc API';

	icon: Icon = { light: 'file:../nodes/SvcChat/svc.svg', dark: 'file:../nodes/SvcChat/svc.dark.svg' };

	documentationUrl = 'https://github.com/n8n-nodes-svc/n8n-nodes-svc#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'Host',
			name: 'host',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'e.g. acme.svc.example',
			description:
				'Your chat server: the account sub-domain for cloud accounts, or your own host. HTTPS is always used; http:// is accepted only for a local test server (localhost).',
		},
		{
			displayName: 'Admin Email',
			name: 'email',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'name@email.com',
			description:
				'Email of an administrator operator. API access must first be enabled by Svc technical support.',
		},
		{
			displayName: 'Password',
			name: 'password',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description: "The administrator's password",
		},
		{
			displayName: 'Ignore SSL Issues (Insecure)',
			name: 'ignoreSslIssues',
			type: 'boolean',
			default: false,
			description:
				'Whether to connect even if the TLS certificate cannot be verified, e.g. a self-signed certificate on your own host',
		},
	];

	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: {
			auth: {
				username: '={{$credentials.email}}',
				password: '={{$credentials.password}}',
			},
		},
	};
}
