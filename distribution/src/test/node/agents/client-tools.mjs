// One tool loop through Caduceus with an unmodified agent framework that brings its own tool, `lookup_code`:
// the agent's server tools may run in the same turn; the framework must run its tool and the final answer use it.
// Usage: node client-tools.mjs <framework>; env BASE_URL (…/v1), API_KEY. Prints one JSON line:
// {"text": final answer, "executed": [arguments the framework's tool got], "finishReasons": [...]}.
import { z } from 'zod';

const [framework] = process.argv.slice(2);
const baseURL = process.env.BASE_URL;
const apiKey = process.env.API_KEY;
const executed = [];
const lookup = async ({ topic }) => {
  executed.push({ topic });
  return `code-for-${topic}`;
};
const description = 'Looks up the code word for a topic.';
const prompt = 'Add 20 and 22 with your tool, then look up the code word for tea.';
const out = { framework };

switch (framework) {
  case 'ai-sdk-compatible':
  case 'ai-sdk-openai': {
    const { generateText, tool, stepCountIs } = await import('ai');
    let model;
    if (framework === 'ai-sdk-compatible') {
      const { createOpenAICompatible } = await import('@ai-sdk/openai-compatible');
      model = createOpenAICompatible({ name: 'caduceus', baseURL, apiKey })('hermes-agent');
    } else {
      const { createOpenAI } = await import('@ai-sdk/openai');
      model = createOpenAI({ baseURL, apiKey })('hermes-agent'); // the Responses API, the provider's default
    }
    const tools = process.env.NO_CLIENT_TOOLS ? undefined
      : { lookup_code: tool({ description, inputSchema: z.object({ topic: z.string() }), execute: lookup }) };
    const result = await generateText({ model, tools, stopWhen: stepCountIs(5), prompt, maxRetries: 0 });
    out.text = result.text;
    out.finishReasons = result.steps.map((s) => s.finishReason);
    break;
  }
  case 'langchain': {
    const { ChatOpenAI } = await import('@langchain/openai');
    const { tool } = await import('@langchain/core/tools');
    const { HumanMessage, ToolMessage } = await import('@langchain/core/messages');
    const lookupTool = tool(lookup, { name: 'lookup_code', description, schema: z.object({ topic: z.string() }) });
    const llm = new ChatOpenAI({ model: 'hermes-agent', apiKey, configuration: { baseURL }, maxRetries: 0 })
      .bindTools([lookupTool]);
    const messages = [new HumanMessage(prompt)];
    out.finishReasons = [];
    for (let step = 0; step < 5; step++) {
      const reply = await llm.invoke(messages);
      messages.push(reply);
      out.finishReasons.push(reply.response_metadata?.finish_reason);
      if (!reply.tool_calls?.length) {
        out.text = reply.content;
        break;
      }
      for (const call of reply.tool_calls) {
        const result = await lookupTool.invoke(call.args);
        messages.push(new ToolMessage({ content: String(result), tool_call_id: call.id }));
      }
    }
    break;
  }
  case 'agents-chat':
  case 'agents-responses': {
    const OpenAI = (await import('openai')).default;
    const agents = await import('@openai/agents');
    agents.setTracingDisabled(true); // nothing leaves for OpenAI's trace exporter
    const client = new OpenAI({ baseURL, apiKey, maxRetries: 0 });
    const model = framework === 'agents-chat'
      ? new agents.OpenAIChatCompletionsModel(client, 'hermes-agent')
      : new agents.OpenAIResponsesModel(client, 'hermes-agent');
    const tools = process.env.NO_CLIENT_TOOLS ? []
      : [agents.tool({ name: 'lookup_code', description, parameters: z.object({ topic: z.string() }), execute: lookup })];
    const agent = new agents.Agent({ name: 'assistant', instructions: 'Be brief.', model, tools });
    const result = await agents.run(agent, prompt, { maxTurns: 5 });
    out.text = result.finalOutput;
    break;
  }
  default:
    throw new Error(`unknown framework ${framework}`);
}
out.executed = executed;
console.log(JSON.stringify(out));
