"""``judge inject``: raw messages take exactly the path received mail takes.

Store (as intake does, with the same deduplication) → process → deliver the outbox.
"""

from __future__ import annotations

from dataclasses import dataclass

from judge.basics.config import Config
from judge.mail.intake.accept import Arrival, envelope_sender_of, message_id_of, store_arrivals
from judge.pipeline.stages import Pipeline
from judge.mail.sending.sender import deliver_due
from judge.mail.sending.submission import transport_for
from judge.basics.addresses import normalise
from judge.pipeline.worker import process_pending
from judge.store.db import Store


@dataclass(frozen=True)
class InjectReport:
    stored: int
    duplicates: int
    processed: int
    delivered: int


def inject(store: Store, config: Config, messages: list[bytes]) -> InjectReport:
    arrivals = [Arrival(normalise(config.judge.address), envelope_sender_of(raw), raw,
                        message_id_of(raw)) for raw in messages]
    stored = store_arrivals(store, arrivals) if arrivals else 0
    processed = process_pending(store, config, Pipeline(config))
    delivered = deliver_due(store, transport_for(config), config)
    return InjectReport(stored, len(arrivals) - stored, processed, delivered)
