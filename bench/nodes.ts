// The node classes for the benchmarks. tsx resolves "SvcChat.node" to the codex file SvcChat.node.json (Node's own
// extension order puts .json before .ts), so the sources are imported by their full file names.
import path from 'node:path';

const ACTION_SOURCE = path.join(__dirname, '../nodes/SvcChat/SvcChat.node.ts');
const TRIGGER_SOURCE = path.join(__dirname, '../nodes/SvcChat/SvcChatTrigger.node.ts');

export async function loadNodes() {
	const { SvcChat } = (await import(
		ACTION_SOURCE
	)) as typeof import('../nodes/SvcChat/SvcChat.node');
	const { SvcChatTrigger } = (await import(
		TRIGGER_SOURCE
	)) as typeof import('../nodes/SvcChat/SvcChatTrigger.node');
	return { SvcChat, SvcChatTrigger };
}
