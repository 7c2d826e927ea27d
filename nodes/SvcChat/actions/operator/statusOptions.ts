// The operator statuses seen in the spec, as options; the full set is not shown, so expressions may give others.
import type { INodePropertyOptions } from 'n8n-workflow';

export const OPERATOR_STATUS_OPTIONS: INodePropertyOptions[] = [
	{ name: 'Dinner', value: 'dinner' },
	{ name: 'Invisible', value: 'invisible' },
	{ name: 'Offline', value: 'offline' },
	{ name: 'Online', value: 'online' },
	{ name: 'Pre-Dinner', value: 'pre-dinner' },
];
