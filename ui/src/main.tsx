/** Entry of the web UI: loads which sections this origin reaches, then renders the app. */
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router';
import { ApiError, loadConfig } from './api/client';
import { App } from './App';
import { applyTheme, storedTheme } from './components/theme';
import './styles.css';

const queries = new QueryClient({
  defaultOptions: {
    queries: {
      // A 4xx will not change by asking again.
      retry: (count, err) => !(err instanceof ApiError && err.status < 500) && count < 2,
      refetchOnWindowFocus: false,
    },
  },
});

applyTheme(storedTheme());
const root = createRoot(document.getElementById('root')!);
loadConfig()
  .then((sections) =>
    root.render(
      <StrictMode>
        <QueryClientProvider client={queries}>
          <BrowserRouter basename="/ui">
            <App sections={sections} />
          </BrowserRouter>
        </QueryClientProvider>
      </StrictMode>,
    ),
  )
  .catch((err: Error) => root.render(<p role="alert">Cannot start the UI: {err.message}</p>));
