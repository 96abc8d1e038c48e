/** @jsxRuntime automatic */ // tsx runs this file without tui/tsconfig.json
import { Box, Static, Text } from 'ink';
import { printable, useTheme, type Theme } from '../src/index.js';
import type { Entry } from './useTranscript.js';

const TOOL_LINES = 8;

const ANSWER: Record<string, { text: string; color: keyof Theme }> = {
  approved: { text: '✓ Approved', color: 'success' },
  'approved:session': { text: '✓ Approved for this session', color: 'success' },
  'approved:project': { text: '✓ Approved for this project', color: 'success' },
  'granted:session': { text: '✓ Approved: you approved it for this session', color: 'success' },
  'granted:project': { text: '✓ Approved: you approved it for this project', color: 'success' },
  denied: { text: '✗ Denied', color: 'danger' },
  resumed: { text: '↩ Continued', color: 'paused' },
  timed_out: { text: '✗ Timed out', color: 'danger' },
};

/**
 * Transcript prints finished entries once (<Static>) and redraws only the
 * ones still streaming, so a long conversation costs nothing to keep.
 */
export function Transcript({ entries }: { entries: Entry[] }) {
  const firstOpen = entries.findIndex((e) => !e.done);
  const done = firstOpen === -1 ? entries : entries.slice(0, firstOpen);
  const live = firstOpen === -1 ? [] : entries.slice(firstOpen);
  return (
    <>
      <Static items={done}>{(entry) => <EntryView key={entry.id} entry={entry} />}</Static>
      {live.map((entry) => (
        <EntryView key={entry.id} entry={entry} />
      ))}
    </>
  );
}

/** lastLines: the tail of streamed output. */
function lastLines(text: string, n: number): string[] {
  const lines = text.replace(/\n$/, '').split('\n');
  return lines.length > n ? ['…', ...lines.slice(-n)] : lines;
}

/** firstLines: the head of a result, blank lines dropped. */
function firstLines(text: string, n: number): string[] {
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  return lines.length > n ? [...lines.slice(0, n), '…'] : lines;
}

function shown(entry: Entry): Entry {
  if (entry.kind !== 'tool') return { ...entry, text: printable(entry.text) };
  const result = entry.result && { ...entry.result, text: printable(entry.result.text) };
  return { ...entry, name: printable(entry.name), title: printable(entry.title), output: printable(entry.output), result };
}

function EntryView({ entry: raw }: { entry: Entry }) {
  const theme = useTheme();
  // Every string here is the model's, a tool's or its output's: as text, no control character reaches the terminal.
  const entry = shown(raw);
  switch (entry.kind) {
    case 'note':
      return <Text color={theme.muted}>{entry.text}</Text>;
    case 'user':
      return (
        <Box marginTop={1}>
          <Text color={theme.active} bold>{'> '}{entry.text}</Text>
        </Box>
      );
    case 'assistant':
      return <Text>{entry.text}</Text>;
    case 'marker':
      return <Text color={theme.interrupted}>— {entry.text} —</Text>;
    case 'error':
      return <Text color={theme.danger}>{entry.text}</Text>;
    case 'tool': {
      // The result repeats the streamed output; show only what it adds.
      const resultText = entry.result
        ? entry.output && entry.result.text.startsWith(entry.output.trimEnd())
          ? entry.result.text.slice(entry.output.trimEnd().length).trim()
          : entry.result.text.trim()
        : '';
      const answer = entry.answer ? (ANSWER[entry.answer] ?? { text: entry.answer, color: 'muted' }) : null;
      return (
        <Box flexDirection="column">
          <Text>
            <Text color={theme.active}>● {entry.name}</Text> {entry.title}
          </Text>
          {answer ? <Text color={theme[answer.color]}>{'  '}{answer.text}</Text> : null}
          {entry.output
            ? lastLines(entry.output, TOOL_LINES).map((line, i) => (
                <Text key={i} color={theme.muted}>
                  {'  │ '}
                  {line}
                </Text>
              ))
            : null}
          {resultText
            ? firstLines(resultText, 4).map((line, i) => (
                <Text key={i} color={entry.result?.isError ? theme.danger : theme.muted}>
                  {i === 0 ? '  ⎿ ' : '    '}
                  {line}
                </Text>
              ))
            : null}
        </Box>
      );
    }
  }
}
