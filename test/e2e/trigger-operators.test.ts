// Real n8n 2.41.1: the trigger's operator events, every operator offline and back (the scenario is shared with n8n 1.x).
import { testOperatorEvents } from './trigger-operators.scenario';

testOperatorEvents();
