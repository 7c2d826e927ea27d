// The operator statuses seen in the spec, as options; the full set is not shown, so expressions may give others.
import type { INodePropertyOptions } from 'n8n-workflow';

export const OPERATOR_STATUS_OPTIONS: INodePropertyOptions[] = [
	{ name: 'Dinner', value: 'dinner', description: 'On a break (Svc calls every break "dinner")' },
	{
		name: 'Invisible',
		value: 'invisible',
		description: 'Signed in, but not shown to visitors as available',
	},
	{
		name: 'Offline',
		value: 'offline',
		description: 'Signed out. Set Status cannot bring an operator back from offline.',
	},
	{ name: 'Online', value: 'online', description: 'Available for chats' },
	{
		name: 'Pre-Dinner',
		value: 'pre-dinner',
		description: 'About to go on a break: Svc\'s status before "dinner"',
	},
];
