// Every resource of the Svc Chat node, by value: the node's description and the router both read this one list.
import type { SvcResource } from './router';
import { broadcast } from './broadcast/Broadcast.resource';
import { chat } from './chat/Chat.resource';
import { department } from './department/Department.resource';
import { operator } from './operator/Operator.resource';
import { statistics } from './statistics/Statistics.resource';
import { tariff } from './tariff/Tariff.resource';
import { visitor } from './visitor/Visitor.resource';

export const resources: Record<string, SvcResource> = {
	broadcast,
	chat,
	department,
	operator,
	statistics,
	tariff,
	visitor,
};
