<?php
declare(strict_types=1);

namespace App\Http\Controllers;

use App\Models\User;
use App\Services\{Mailer, Logger as Log};
use function App\Support\helper;
require_once __DIR__ . '/../bootstrap.php';
require 'config.php';

/**
 * Handles users.
 */
final class UserController extends Controller implements Responsable, \JsonSerializable
{
    use HasEvents, Loggable;

    private Mailer $mailer;

    public function __construct(Mailer $mailer)
    {
        parent::__construct();
        $this->mailer = $mailer;
    }

    /** Show a user. */
    public function show(int $id): User
    {
        $user = User::find($id);
        $this->mailer->send($user);
        $log = new Log();
        static::boot();
        helper($id);
        array_map([$this, 'fmt'], []);
        return $user;
    }

    private static function fmt(User $u): string { return strtoupper($u->name); }
}

interface Responsable { public function toResponse($request); }

trait Loggable { protected function log(string $m): void {} }

enum Suit: string { case Hearts = 'H'; }

function boot(): void { echo "hi"; }
?>
<div><?= $x ?></div>
