"""Downloads into the :class:`~.cache.UrlCache` with httpx: timeouts, a size limit, progress.

A transfer that fails in any way (timeout, HTTP error, a body shorter than its Content-Length,
more bytes than the limit) raises :class:`DownloadError` and leaves nothing in the cache.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import httpx

from .cache import UrlCache

MIB = 1024 * 1024
PROGRESS_STEP = 8 * MIB  # a large asset reports its progress every PROGRESS_STEP bytes

Progress = Callable[[str, int, int | None], None]  # url, bytes so far, total (if known)


def _log_progress(url: str, received: int, total: int | None) -> None:
    of = f' of {total // MIB} MiB' if total else ' MiB'
    logging.getLogger(__name__).info('downloading %s: %d%s', url, received // MIB, of)


class DownloadError(Exception):
    """A URL could not be downloaded; the message says why (never the content)."""


@dataclass(frozen=True)
class DownloadPolicy:
    allowed: bool = True
    timeout: float = 30.0  # seconds, per connect/read
    max_bytes: int = 256 * MIB
    progress: Progress | None = None


class Downloader:
    """Fetches URLs into ``cache``; one HTTP connection pool, opened on first use."""

    def __init__(self, cache: UrlCache, policy: DownloadPolicy):
        self.cache = cache
        self.policy = policy
        self.fetched: list[tuple[str, Path]] = []
        self._client: httpx.Client | None = None
        self._unreachable: dict[str, str] = {}  # host -> why

    def _http(self) -> httpx.Client:
        if self._client is None:
            self._client = httpx.Client(timeout=httpx.Timeout(self.policy.timeout),
                                        follow_redirects=True,
                                        headers={'User-Agent': 'scene_sim_ros'})
        return self._client

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None

    def fetch(self, url: str) -> Path:
        if not self.policy.allowed:
            raise DownloadError('downloads are off (webots.download=false or --offline)')
        try:
            host = httpx.URL(url).host
        except (httpx.InvalidURL, UnicodeError) as err:   # e.g. a host name IDNA refuses
            raise DownloadError(f'not a valid URL ({err})') from None
        if host in self._unreachable:  # one wait per host and load, not one per file
            raise DownloadError(self._unreachable[host])
        try:
            self._transfer(url)
        except (httpx.ConnectError, httpx.ConnectTimeout) as err:
            self._unreachable[host] = f'cannot reach {host} ({type(err).__name__}: {err})'
            raise DownloadError(self._unreachable[host]) from None
        except httpx.HTTPStatusError as err:
            raise DownloadError(f'HTTP {err.response.status_code}') from None
        except httpx.TimeoutException:
            raise DownloadError(f'timed out after {self.policy.timeout:g} s') from None
        except httpx.HTTPError as err:
            raise DownloadError(f'{type(err).__name__}: {err}') from None
        except UnicodeError as err:   # a host name IDNA refuses, found only when connecting
            raise DownloadError(f'not a valid URL ({err})') from None
        except OSError as err:
            raise DownloadError(f'cannot write the cache: {err}') from None
        path = self.cache.path_for(url)
        self.fetched.append((url, path))
        return path

    def _transfer(self, url: str) -> None:
        limit = self.policy.max_bytes
        with self._http().stream('GET', url) as response:
            response.raise_for_status()
            header = response.headers.get('Content-Length')
            total = int(header) if header and header.isdigit() else None
            if total is not None and total > limit and not response.headers.get(
                    'Content-Encoding'):
                raise DownloadError(f'{total} bytes, more than the limit of {limit} bytes')
            received, reported = 0, 0
            with self.cache.writer(url) as out:
                for chunk in response.iter_bytes():
                    received += len(chunk)
                    if received > limit:
                        raise DownloadError(f'more than the limit of {limit} bytes')
                    out.write(chunk)
                    if received - reported >= PROGRESS_STEP:
                        reported = received
                        (self.policy.progress or _log_progress)(url, received, total)
                # Content-Length counts the bytes on the wire (gzip-encoded ones too); h11
                # raises on a short body first, this is belt and braces
                wire = response.num_bytes_downloaded
                if total is not None and wire != total:
                    raise DownloadError(f'incomplete: {wire} of {total} bytes')
