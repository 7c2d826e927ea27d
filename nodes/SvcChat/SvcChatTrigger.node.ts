// The "Svc Chat Trigger": polls for new or changed chats, ratings, missed chats and waiting visitors, never losing one, or operators' statuses.
import { NodeConnectionTypes } from 'n8n-workflow';
import type { IDataObject, INodeType, INodeTypeDescription, IPollFunctions } from 'n8n-workflow';

import { searchOperators } from './descriptions/listSearch';
import { pollParameters } from './parameters';
import {
	SVC_CHAT_TRIGGER_DESCRIPTION,
	TRIGGER_SUBTITLE,
	triggerProperties,
} from './trigger/description';
import { operatorProperties, pollOperators } from './trigger/operators';
import { pollBudget, pollChats } from './trigger/poll';
import { LoginPaused, triesAtOnce } from './transport/loginGuard';
import { testSvcCredentials } from './transport/request';

/** The state of each trigger with a poll under way: n8n starts a poll when it is due, even while the last one runs. */
const pollsUnderWay = new WeakSet<IDataObject>();
/** The states this process has polled: the first poll of a publication or update tries despite the account's pause. */
const polledStates = new WeakSet<IDataObject>();

export class SvcChatTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Svc Chat Trigger',
		name: 'svcChatTrigger',
		icon: { light: 'file:svc.svg', dark: 'file:svc.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: TRIGGER_SUBTITLE,
		description: SVC_CHAT_TRIGGER_DESCRIPTION,
		defaults: { name: 'Svc Chat Trigger' },
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'svcApi', required: true, testedBy: 'testSvcCredentials' }],
		properties: [...triggerProperties, ...operatorProperties],
	};

	methods = { listSearch: { searchOperators }, credentialTest: { testSvcCredentials } };

	async poll(this: IPollFunctions) {
		// Two polls from one state would both emit what is new since it. One that finds another under way gives way, and
		// the next poll after that one goes on from where it ended: nothing is emitted twice, nothing is lost. Fetch Test
		// Event neither reads nor writes the state.
		if (this.getMode() === 'manual') return await pollEvent(this);
		const state = this.getWorkflowStaticData('node');
		if (pollsUnderWay.has(state)) {
			this.logger.warn(
				'Svc Chat Trigger: the previous poll is still running, so this one was skipped; the next poll goes on from where it ends. Poll less often if this repeats.',
			);
			return null;
		}
		pollsUnderWay.add(state);
		delete state.loginPause; // the per-trigger pause of earlier versions; the account's guard is in memory
		if (!polledStates.has(state) && ['activate', 'update'].includes(this.getActivationMode()))
			triesAtOnce.add(this);
		polledStates.add(state);
		try {
			// The account pauses after a refused login: no request was made, and no execution is started; unless the pause
			// now ends later than an error said.
			return await pollEvent(this).catch((error: unknown) => {
				if (!(error instanceof LoginPaused) || error.extended) throw error;
				this.logger.debug(`Svc Chat Trigger: ${error.message}`);
				return null;
			});
		} finally {
			triesAtOnce.delete(this);
			pollsUnderWay.delete(state);
		}
	}
}

async function pollEvent(context: IPollFunctions) {
	const event = pollParameters(context, triggerProperties).choice<string>('emit');
	if (event === 'operatorAvailabilityChanged' || event === 'operatorStatusChanged')
		return await pollOperators(context, event, pollBudget(context).endBy);
	return await pollChats(context);
}
