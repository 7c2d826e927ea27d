// The one credentials type: the chat server host and an administrator's e-mail and password, sent as HTTP Basic.
import type { Icon, ICredentialType, INodeProperties } from 'n8n-workflow';

// Prefixes, never `_cnd.regex`: n8n checks these at every read of the credential, and a regex in its 250 ms vm fails a
// busy execution. Missed (no notice, still refused): leading spaces, other scheme casings, "http://127.0.0.1.example".
const PLAIN_HTTP = ['http://', 'HTTP://', 'Http://'];
const startsWith = (prefix: string) => ({ _cnd: { startsWith: prefix } });
const toLoopback = (scheme: string) => [
	{ _cnd: { eq: `${scheme}localhost` } },
	...['localhost:', 'localhost/', '127.', '[::1]'].map((host) => startsWith(scheme + host)),
];

export class SvcApi implements ICredentialType {
	name = 'svcApi';

	displayName = 'Svc API';

	icon: Icon = {
		light: 'file:../nodes/SvcChat/svc.svg',
		dark: 'file:../nodes/SvcChat/svc.dark.svg',
	};

	documentationUrl = 'https://github.com/n8n-nodes-svc/n8n-nodes-svc#credentials';

	// Only the nodes that declare this credential (Svc Chat, its AI-tool variant, Svc Chat Trigger) may have it
	// decrypted: n8n infers that list from the nodes, so the HTTP Request node cannot send the password anywhere.
	restrictToSupportedNodes = true as const;

	// No `authenticate` block on purpose: n8n offers any credential that has one to the HTTP Request node and adds a
	// "Custom API Call" operation to our node. The transport applies Basic auth itself, only to the typed host.
	// No `test` either: the Svc Chat node tests it (`testedBy`), with one login that the account's guard counts.

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
			// The Test button can only show n8n's "ERR_INVALID_URL" for a refused host, so the form says why as it is typed.
			displayName:
				'Plain http:// is refused for any host but localhost: the password would cross the network unencrypted. Use https:// (or just the host name).',
			name: 'plainHttpNotice',
			type: 'notice',
			default: '',
			displayOptions: {
				show: { host: PLAIN_HTTP.map(startsWith) },
				hide: { host: PLAIN_HTTP.flatMap(toLoopback) },
			},
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
			description:
				"The administrator's password. Opening this form for a saved credential tests it again: one login, which a wrong password's pause counts.",
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
}
