// Imported first by the n8n 1.x test file: every e2e environment of that file runs the pinned n8n 1.x (runtime/n8n-1).
import { useRuntimeFlavour } from './environment';

useRuntimeFlavour('n8n-1');
